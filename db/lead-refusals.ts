import type { Knex } from 'knex';

export type RefusalReason = 'unknown_listing' | 'blocked' | 'rate_limited' | 'bot_check';

/**
 * Counts of enquiries refused before they became leads, per day and reason. Refusals are counted
 * in memory and written once every few seconds as one upsert per reason, so a flood of refused
 * requests (they come from anyone) costs the database a few statements, not one per request.
 */
export function refusalCounter(db: Knex, options: { flushMs?: number; onError?: (err: Error) => void } = {}) {
  let pending = new Map<RefusalReason, number>();
  let timer: NodeJS.Timeout | null = null;
  const flush = async () => {
    timer = null;
    const counts = pending;
    pending = new Map();
    if (counts.size === 0) return;
    const rows = [...counts].map(([reason, count]) => ({ day: db.raw('current_date'), reason, count }));
    await db('lead_refusals')
      .insert(rows)
      .onConflict(['day', 'reason'])
      .merge({ count: db.raw('lead_refusals.count + excluded.count') })
      .catch((err: Error) => options.onError?.(err));
  };
  return {
    count(reason: RefusalReason) {
      pending.set(reason, (pending.get(reason) ?? 0) + 1);
      if (!timer) timer = setTimeout(() => void flush(), options.flushMs ?? 5_000).unref();
    },
    /** Writes what is counted now (at shutdown, and in tests). */
    async flush() {
      if (timer) clearTimeout(timer);
      await flush();
    },
  };
}

export type RefusalCounter = ReturnType<typeof refusalCounter>;

/** Refusals of the last `days` days (today included): the total, per reason and per day. */
export async function leadRefusals(db: Knex, days: number) {
  const rows: { day: string | Date; reason: string; count: number }[] = await db('lead_refusals')
    .where('day', '>', db.raw('current_date - ?::int', [days]))
    .orderBy(['day', 'reason'])
    .select('day', 'reason', 'count');
  const byReason: Record<string, number> = {};
  let total = 0;
  for (const r of rows) {
    byReason[r.reason] = (byReason[r.reason] ?? 0) + r.count;
    total += r.count;
  }
  const dayText = (d: string | Date) => (typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10));
  return { days, total, byReason, byDay: rows.map((r) => ({ day: dayText(r.day), reason: r.reason, count: r.count })) };
}
