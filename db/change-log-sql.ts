/** SQL the change log's triggers and its readers share (migration 20261128100000_change_log, db/listing-history.ts). */

/**
 * The public prices of a row (alias `r`) as the log keeps them: amount, currency and a rent's
 * period; null when withheld or absent. A LATERAL of the row's columns, so each record is read
 * once, and plain expressions (a SQL function here is not inlined and costs a plan per call).
 */
export const amount = (p: string, period = true) =>
  `CASE WHEN jsonb_typeof(${p}->'amount') = 'number' THEN jsonb_strip_nulls(jsonb_build_object('amount', ${p}->'amount', 'currency', ${p}->'currency'${period ? `, 'period', ${p}->'period'` : ''})) END`;
export const publicPricesOf = (r: string) => `LATERAL (
    SELECT ${amount('x.asking')} AS price, CASE WHEN ${r}.status IN ('sold', 'leased') THEN ${amount('x.sold', false)} END AS sold
      FROM (SELECT ${askingOf(`${r}.data`, `${r}.public_patch`)} AS asking, ${soldOf(`${r}.data`, `${r}.public_patch`)} AS sold) x)`;

/** The asking price (or rent) object the public sees, of a record and its public patch (SQL expressions). */
export const askingOf = (data: string, patch: string) =>
  `CASE WHEN ${data}->>'saleMode' = 'rent' THEN coalesce(${patch}->'rent', ${data}->'rent') ELSE coalesce(${patch}->'price', ${data}->'price') END`;
/** The sold price object the public sees, of a record and its public patch. */
export const soldOf = (data: string, patch: string) => `coalesce(${patch}->'sold', ${data}->'sold')->'price'`;
