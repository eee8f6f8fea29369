// The admin API with the operator token as a Bearer header; errors carry the server's own text.
import { token } from './session.js';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** @type {(message: string) => void} */
let sessionEnded = () => {};
/** Called when the server no longer accepts the token (expired, revoked). */
export const whenSessionEnds = (callback) => {
  sessionEnded = callback;
};

/** Calls the admin API; throws ApiError with the server's error text. */
export async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: { authorization: `Bearer ${token() ?? ''}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) {
    if (res.status === 401) sessionEnded('Your session ended: the token is no longer accepted. Sign in again.');
    throw new ApiError(res.status, data?.error ?? `${res.status} ${res.statusText}`);
  }
  return data;
}

/** The admin API's largest page of keys, and the furthest offset it pages to. */
const KEY_PAGE = 200;
const MAX_OFFSET = 10000;

/**
 * Every feed key, by client name, for the pickers (feeds filter, webhook registration): page
 * after page of the admin list, which gives at most 200 at a time, up to the furthest page it
 * serves (10,200 keys).
 */
export async function allKeys() {
  const keys = [];
  for (;;) {
    const page = await api('GET', `/v1/admin/keys?${query({ limit: KEY_PAGE, offset: keys.length, sort: 'client' })}`);
    keys.push(...page.keys);
    if (page.nextOffset === null || page.keys.length === 0 || page.nextOffset > MAX_OFFSET) return { keys };
  }
}

/** A query string from an object, leaving out empty values. */
export const query = (params) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  return q.toString();
};

/**
 * Opens the queue board's session: an HttpOnly, SameSite=Strict cookie the server sets for /admin,
 * so the board needs no password prompt and no other site can use it.
 */
export const openBoardSession = () => fetch('/admin/session', { method: 'POST', headers: { authorization: `Bearer ${token() ?? ''}` } }).catch(() => undefined);
export const closeBoardSession = () => fetch('/admin/session', { method: 'DELETE' }).catch(() => undefined);
