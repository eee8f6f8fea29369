import { SaxesParser } from 'saxes';
import { FX_SNAPSHOT } from './fx-snapshot.js';
import type { Logger } from './logger.js';

export interface FxRates {
  base: string;
  /** The date the rates are for (YYYY-MM-DD). */
  asOf: string;
  /** Where they came from: the primary or backup source, or the bundled snapshot. */
  source: string;
  rates: Record<string, number>;
}

export interface FxProvider {
  current(): Promise<FxRates>;
}

const FETCH_TIMEOUT_MS = 3000;
/** Live rates are re-fetched after this long; ECB publishes once a working day. */
export const FX_REFRESH_MS = 60 * 60 * 1000;

/** Without any good rates yet, requests wait for a fetch at most once per this long. */
const RETRY_AFTER_FAILURE_MS = 60_000;

const isRate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

/** ECB eurofxref-daily.xml: `<Cube time='…'>` holding `<Cube currency='USD' rate='1.1225'/>`s. */
export function parseEcbDaily(xml: string): FxRates {
  let asOf: string | null = null;
  const rates: Record<string, number> = { EUR: 1 };
  const parser = new SaxesParser({ xmlns: false, position: false });
  parser.on('opentag', (tag) => {
    if (tag.name !== 'Cube') return;
    const attrs = tag.attributes as Record<string, string>;
    if (attrs.time) asOf = attrs.time;
    if (attrs.currency && attrs.rate) {
      const rate = Number(attrs.rate);
      if (/^[A-Z]{3}$/.test(attrs.currency) && isRate(rate)) rates[attrs.currency] = rate;
    }
  });
  parser.write(xml).close();
  if (!asOf || !/^\d{4}-\d{2}-\d{2}$/.test(asOf) || Object.keys(rates).length < 2) throw new Error('not an ECB daily reference-rate document');
  return { base: 'EUR', asOf, source: 'primary', rates };
}

/** The backup's JSON: `{ base_code, time_last_update_unix, rates: { CODE: number } }` (open.er-api.com's shape). */
export function parseBackupJson(text: string): FxRates {
  const doc = JSON.parse(text) as { result?: string; base_code?: unknown; time_last_update_unix?: unknown; rates?: Record<string, unknown> };
  if (doc.result && doc.result !== 'success') throw new Error(`backup source answered result=${doc.result}`);
  if (typeof doc.base_code !== 'string' || !/^[A-Z]{3}$/.test(doc.base_code) || !doc.rates || typeof doc.rates !== 'object')
    throw new Error('not an FX rates document');
  const rates: Record<string, number> = {};
  for (const [code, rate] of Object.entries(doc.rates)) if (/^[A-Z]{3}$/.test(code) && isRate(rate)) rates[code] = rate;
  if (Object.keys(rates).length < 2) throw new Error('the backup source listed no rates');
  const asOf =
    typeof doc.time_last_update_unix === 'number'
      ? new Date(doc.time_last_update_unix * 1000).toISOString().slice(0, 10)
      : new Date().toISOString().slice(0, 10);
  return { base: doc.base_code, asOf, source: 'backup', rates };
}

async function fetchText(url: string): Promise<string> {
  const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/xml, application/json' } });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return res.text();
}

/** FX_SOURCE=static: the bundled snapshot. */
export function staticFx(): FxProvider {
  return { current: async () => ({ ...FX_SNAPSHOT, rates: { ...FX_SNAPSHOT.rates } }) };
}

/**
 * FX_SOURCE=live: rates from the primary source, else the backup, cached for FX_REFRESH_MS. A
 * stale cache is served at once while one refresh runs behind it; when both sources fail, the
 * last good rates stay (the bundled snapshot before any fetch succeeded), so a request never
 * fails while any rates are known.
 */
export function liveFx(options: { primaryUrl: string; backupUrl: string; logger: Logger; refreshMs?: number }): FxProvider {
  const refreshMs = options.refreshMs ?? FX_REFRESH_MS;
  let last: { rates: FxRates; at: number } | null = null;
  let failedAt = 0;
  let refreshing: Promise<void> | null = null;

  const refresh = () =>
    (refreshing ??= (async () => {
      try {
        last = { rates: parseEcbDaily(await fetchText(options.primaryUrl)), at: Date.now() };
      } catch (primaryErr) {
        options.logger.warn({ err: (primaryErr as Error).message }, 'FX primary source failed; trying the backup');
        try {
          last = { rates: parseBackupJson(await fetchText(options.backupUrl)), at: Date.now() };
        } catch (backupErr) {
          failedAt = Date.now();
          options.logger.warn({ err: (backupErr as Error).message }, 'FX backup source failed; serving the last good rates');
        }
      }
    })().finally(() => {
      refreshing = null;
    }));

  return {
    async current() {
      if (last && Date.now() - last.at < refreshMs) return last.rates;
      if (last) {
        void refresh();
        return last.rates;
      }
      // Both sources just failed: do not hold requests up while they are down.
      if (Date.now() - failedAt < RETRY_AFTER_FAILURE_MS) {
        void refresh();
        return staticFx().current();
      }
      await refresh();
      return (last as { rates: FxRates } | null)?.rates ?? (await staticFx().current());
    },
  };
}
