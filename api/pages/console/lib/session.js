// The operator's token: kept in this tab (sessionStorage) or, when the operator asks, on this
// browser (localStorage); never in a URL, a cookie the page can read, or a log. A tab opened later
// in the same browser session asks the open tabs for it (BroadcastChannel, same origin only), so
// the operator signs in once per browser session rather than once per tab; signing out in one tab
// signs out every tab.

const KEY = 'operatorToken';
const channel = 'BroadcastChannel' in window ? new BroadcastChannel('operator-console') : null;
let onSignedOutElsewhere = () => {};

export const token = () => sessionStorage.getItem(KEY) ?? localStorage.getItem(KEY);

/** Keeps the token for this tab, and on this browser too when `remember` is set. */
export function keepToken(value, remember) {
  sessionStorage.setItem(KEY, value);
  if (remember) localStorage.setItem(KEY, value);
  else localStorage.removeItem(KEY);
}

/** Forgets the token here and in every other open tab. */
export function dropToken() {
  sessionStorage.removeItem(KEY);
  localStorage.removeItem(KEY);
  channel?.postMessage({ type: 'signed-out' });
}

/** Called when another tab signs out. */
export const whenSignedOutElsewhere = (callback) => {
  onSignedOutElsewhere = callback;
};

channel?.addEventListener('message', (event) => {
  const message = event.data ?? {};
  if (message.type === 'ask' && token()) channel.postMessage({ type: 'token', token: token() });
  if (message.type === 'signed-out' && token()) {
    sessionStorage.removeItem(KEY);
    onSignedOutElsewhere();
  }
});

/** Asks the other open tabs for their token; resolves to it, or to null after a short wait. */
export function askOpenTabs(waitMs = 300) {
  if (!channel || token()) return Promise.resolve(token());
  return new Promise((resolve) => {
    const answer = (event) => {
      if (event.data?.type !== 'token' || typeof event.data.token !== 'string') return;
      channel.removeEventListener('message', answer);
      sessionStorage.setItem(KEY, event.data.token);
      resolve(event.data.token);
    };
    channel.addEventListener('message', answer);
    channel.postMessage({ type: 'ask' });
    setTimeout(() => {
      channel.removeEventListener('message', answer);
      resolve(token());
    }, waitMs);
  });
}
