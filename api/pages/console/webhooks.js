// The console's Webhooks view: every key's endpoints, registering one for a key (its secret shown
// once), a test event, turning a disabled endpoint on again, deleting one, and each endpoint's
// delivery log. `ui` is the console's helpers (el, when, badge, api, act, confirmFirst, table).

const EVENTS = ['feed.completed', 'feed.failed', 'feed.quarantined', 'listing.archived', 'listing.status_changed'];

export async function webhooks(view, ui) {
  const { el, when, badge, api, act, confirmFirst, table } = ui;
  const keySelect = el('select', { name: 'keyId', required: true, 'aria-label': 'Feed key' });
  const url = el('input', { name: 'url', type: 'url', required: true, placeholder: 'https://crm.example.com/hooks/listings' });
  const description = el('input', { name: 'description', placeholder: 'optional note' });
  const boxes = EVENTS.map((e) => el('label', { class: 'check' }, el('input', { type: 'checkbox', name: 'events', value: e, checked: true }), e));
  const created = el('div');
  const tableBox = el('div');
  const log = el('div', { id: 'deliveries' });

  const showDeliveries = async (endpoint) => {
    const { total, deliveries } = await api('GET', `/v1/admin/webhooks/${endpoint.id}/deliveries?limit=50`);
    log.replaceChildren(
      el('h2', {}, `Deliveries to ${endpoint.url}`),
      el('p', { class: 'muted' }, `${total} deliver${total === 1 ? 'y' : 'ies'}; newest first, up to 50 shown.`),
      table(
        ['Created', 'Event', 'Status', 'Attempts', 'Last answer', 'Latency', 'Error', 'Next attempt'],
        deliveries.map((d) =>
          el(
            'tr',
            { 'data-delivery': d.id },
            el('td', {}, when(d.createdAt)),
            el('td', {}, el('code', {}, d.type)),
            el('td', {}, badge(d.status)),
            el('td', {}, String(d.attempts)),
            el('td', {}, d.lastStatus === null ? '—' : String(d.lastStatus)),
            el('td', {}, d.lastLatencyMs === null ? '—' : `${d.lastLatencyMs} ms`),
            el('td', {}, d.lastError ?? ''),
            el('td', {}, d.nextAttemptAt ? when(d.nextAttemptAt) : '—'),
          ),
        ),
        'Nothing sent to this endpoint yet.',
      ),
    );
  };

  const draw = async () => {
    const [{ endpoints }, { keys }] = await Promise.all([api('GET', '/v1/admin/webhooks'), api('GET', '/v1/admin/keys')]);
    const clientOf = new Map(keys.map((k) => [k.id, k.clientName]));
    keySelect.replaceChildren(
      ...keys.filter((k) => k.status !== 'revoked').map((k) => el('option', { value: k.id }, `${k.clientName} (${k.officeIds.join(', ')})`)),
    );
    const action = (endpoint, label, run, done) =>
      el('button', { type: 'button', onclick: async () => (await act(run, done)) !== undefined && (await draw()) }, label);
    tableBox.replaceChildren(
      table(
        ['Key', 'URL', 'Events', 'Status', 'Created', ''],
        endpoints.map((w) =>
          el(
            'tr',
            { 'data-endpoint': w.id },
            el('td', {}, clientOf.get(w.keyId) ?? w.keyId),
            el('td', {}, el('code', {}, w.url), w.description ? el('div', { class: 'muted' }, w.description) : null),
            el('td', {}, w.events.join(', ')),
            el(
              'td',
              {},
              badge(w.status),
              w.failingSince ? el('div', { class: 'muted' }, `failing since ${when(w.failingSince)}`) : null,
              w.disabledReason ? el('div', { class: 'muted' }, w.disabledReason) : null,
            ),
            el('td', {}, when(w.createdAt)),
            el(
              'td',
              { class: 'actions' },
              el('button', { type: 'button', onclick: () => act(() => showDeliveries(w)) }, 'Deliveries'),
              w.status === 'active'
                ? action(w, 'Send test', () => api('POST', `/v1/admin/webhooks/${w.id}/test`), 'Test event queued; see its delivery below.')
                : action(w, 'Enable', () => api('PATCH', `/v1/admin/webhooks/${w.id}`, { enabled: true }), 'Endpoint enabled.'),
              el(
                'button',
                {
                  type: 'button',
                  class: 'danger',
                  onclick: async () => {
                    if (!confirmFirst(`Delete the endpoint ${w.url}? Nothing more is sent to it.`)) return;
                    if ((await act(() => api('DELETE', `/v1/admin/webhooks/${w.id}`), 'Endpoint deleted.')) !== undefined) {
                      log.replaceChildren();
                      await draw();
                    }
                  },
                },
                'Delete',
              ),
            ),
          ),
        ),
        'No webhook endpoints yet.',
      ),
    );
  };

  const form = el(
    'form',
    {
      class: 'inline',
      onsubmit: async (event) => {
        event.preventDefault();
        const events = boxes.map((b) => b.querySelector('input')).filter((i) => i.checked).map((i) => i.value);
        const body = { keyId: keySelect.value, url: url.value.trim(), events, description: description.value.trim() || null };
        const result = await act(() => api('POST', '/v1/admin/webhooks', body), 'Endpoint registered.');
        if (!result) return;
        created.replaceChildren(
          el(
            'div',
            { class: 'panel' },
            el('strong', {}, 'Its signing secret, shown only now: hand it to the integrator.'),
            el('div', { class: 'secret' }, result.secret),
          ),
        );
        form.reset();
        await draw();
      },
    },
    el('label', {}, 'Feed key', keySelect),
    el('label', {}, 'URL', url),
    el('label', {}, 'Note', description),
    el('fieldset', { class: 'events' }, el('legend', {}, 'Events'), boxes),
    el('button', { class: 'primary', type: 'submit' }, 'Register endpoint'),
  );
  view.replaceChildren(
    el('p', { class: 'muted' }, 'Endpoints that feed keys registered, or that you register for them. Events are signed (Standard Webhooks) and retried for about 27 hours; an endpoint failing for 24 hours is disabled and its key told.'),
    tableBox,
    log,
    el('h2', {}, 'Register an endpoint for a key'),
    el('div', { class: 'panel' }, form, created),
  );
  await act(draw);
}
