// The developer page: request a feed key, dry-run a feed. Talks to the JSON API only.

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) node.append(child);
  return node;
};

async function post(path, body) {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const data = await res.json().catch(() => ({ error: `unexpected answer (${res.status})` }));
  return { ok: res.ok, status: res.status, data };
}

document.getElementById('key-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(/** @type {HTMLFormElement} */ (event.target));
  const out = document.getElementById('key-result');
  out.replaceChildren('Requesting…');
  const officeIds = String(form.get('officeIds'))
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
  const { ok, data } = await post('/v1/developer/keys', { clientName: form.get('clientName'), alertEmail: form.get('alertEmail'), officeIds });
  if (!ok) {
    out.replaceChildren(el('p', { class: 'error' }, data.error));
    return;
  }
  out.replaceChildren(
    el('p', { class: 'ok' }, `Key created for ${data.officeIds.join(', ')}: status ${data.status}. Copy it now; it is not shown again.`),
    el('code', { class: 'key', id: 'new-key' }, data.key),
    el('p', {}, 'An operator approves it; GET /v1/feeds/whoami with it tells you when it is active.'),
  );
});

document.getElementById('dry-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(/** @type {HTMLFormElement} */ (event.target));
  const out = document.getElementById('dry-result');
  out.replaceChildren('Validating…');
  const { ok, data } = await post('/v1/validate', {
    xml: form.get('xml'),
    context: { currency: String(form.get('currency')).toUpperCase(), defaultCountry: String(form.get('defaultCountry') || 'AU').toUpperCase() },
  });
  if (!ok) {
    out.replaceChildren(el('p', { class: 'error' }, data.error));
    return;
  }
  const summary = el(
    'p',
    { class: data.ok ? 'ok' : 'error', id: 'dry-summary' },
    `${data.counts.parsed} parsed, ${data.counts.valid} valid, ${data.counts.invalid} invalid`,
  );
  const rows = data.issues.map((i) =>
    el(
      'tr',
      {},
      el('td', {}, i.level),
      el('td', {}, i.code),
      el('td', {}, i.listingIndex === null ? '' : String(i.listingIndex)),
      el('td', {}, i.message),
      el('td', {}, i.path),
    ),
  );
  const table = rows.length
    ? el('table', {}, el('tr', {}, el('th', {}, 'level'), el('th', {}, 'code'), el('th', {}, '#'), el('th', {}, 'message'), el('th', {}, 'path')), ...rows)
    : el('p', {}, 'No issues.');
  out.replaceChildren(summary, table);
});
