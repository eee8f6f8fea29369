// How the console writes times, texts by locale, addresses and statuses.

export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');
/** The first locale's text of a { locale: text } map (or the text itself). */
export const text = (map) => (map && typeof map === 'object' ? (Object.values(map)[0] ?? '') : (map ?? ''));
export const addressLine = (a) =>
  a
    ? [a.lotNumber ? `Lot ${a.lotNumber}` : null, [a.subNumber, a.streetNumber].filter(Boolean).join('/'), a.street, a.locality, a.region, a.postcode]
        .filter(Boolean)
        .join(' ')
    : '';
export const words = (code) => String(code).replace(/_/g, ' ');
export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Statuses and outcomes by tone: good (green), warn (amber), bad (red). */
export const TONE = {
  active: 'good',
  done: 'good',
  ok: 'good',
  delivered: 'good',
  crm_acknowledged: 'good',
  under_offer: 'good',
  published: 'good',
  applied: 'good',
  reviewed: 'good',
  sold: 'good',
  leased: 'good',
  with_invalid: 'warn',
  suspended: 'warn',
  queued: 'warn',
  running: 'warn',
  pending: 'warn',
  sending: 'warn',
  awaiting_crm: 'warn',
  draft: 'warn',
  open: 'warn',
  warning: 'warn',
  withdrawn: 'warn',
  not_well_formed: 'bad',
  tripped: 'bad',
  revoked: 'bad',
  error: 'bad',
  disabled: 'bad',
  abandoned: 'bad',
  failed: 'bad',
  rejected: 'bad',
  dead_letter: 'bad',
  archived: 'bad',
  hidden: 'bad',
};
