import type { Knex } from 'knex';
import { iso } from './row-values.js';
import type * as Row from './rows.js';

/** Queue depths are kept this long. */
const SAMPLES_KEPT_DAYS = 7;

/**
 * The dashboard's charts, from what the service keeps: per day (UTC) the feeds received by
 * outcome, the listings they applied and read, the invalid share, the leads received by what
 * became of them; and the queue depths sampled each minute.
 */
export async function statsHistory(db: Knex, days: number) {
  // Days are UTC days, whatever the database's time zone.
  const since = db.raw(`(((now() AT TIME ZONE 'UTC')::date - ?::int + 1)::timestamp AT TIME ZONE 'UTC')`, [days]);
  const [feeds, leads, samples] = await Promise.all([
    db('feed_events')
      .where('created_at', '>=', since)
      .select(
        db.raw(`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day`),
        db.raw(`coalesce(outcome, status) AS outcome`),
        db.raw('count(*)::int AS n'),
        db.raw(`coalesce(sum((result->'summary'->>'inserted')::int + (result->'summary'->>'updated')::int), 0)::int AS applied`),
        db.raw(`coalesce(sum((result->'counts'->>'parsed')::int), 0)::int AS read`),
        db.raw(`coalesce(sum((result->'counts'->>'invalid')::int), 0)::int AS invalid`),
      )
      .groupByRaw('1, 2'),
    db('leads')
      .where('created_at', '>=', since)
      .select(db.raw(`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day`), 'status', db.raw('count(*)::int AS n'))
      .groupByRaw('1, 2'),
    db('queue_depth_samples')
      .where('at', '>=', db.raw(`now() - make_interval(days => ?)`, [Math.min(days, SAMPLES_KEPT_DAYS)]))
      .orderBy('at'),
  ]);
  const today = new Date();
  const table = new Map<
    string,
    { day: string; feeds: Record<string, number>; listingsApplied: number; listingsRead: number; invalid: number; leads: Record<string, number> }
  >();
  for (let i = days - 1; i >= 0; i -= 1) {
    const day = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - i)).toISOString().slice(0, 10);
    table.set(day, { day, feeds: {}, listingsApplied: 0, listingsRead: 0, invalid: 0, leads: {} });
  }
  for (const f of feeds as { day: string; outcome: string; n: number; applied: number; read: number; invalid: number }[]) {
    const d = table.get(f.day);
    if (!d) continue;
    d.feeds[f.outcome] = f.n;
    d.listingsApplied += f.applied;
    d.listingsRead += f.read;
    d.invalid += f.invalid;
  }
  for (const l of leads as { day: string; status: string; n: number }[]) {
    const d = table.get(l.day);
    if (d) d.leads[l.status] = l.n;
  }
  return {
    days: [...table.values()].map(({ invalid, ...d }) => ({ ...d, invalidPercent: d.listingsRead ? Math.round((1000 * invalid) / d.listingsRead) / 10 : 0 })),
    queueDepth: samples.map((s: Row.QueueDepthSample) => ({
      at: iso(s.at),
      ingest: s.ingest,
      leadDelivery: s.lead_delivery,
      webhookDelivery: s.webhook_delivery,
    })),
  };
}

/** Stores one sample of the queues' waiting jobs for this minute (one row a minute however many web processes sample), and drops old ones. */
export async function recordQueueDepth(db: Knex, depth: { ingest: number; leadDelivery: number; webhookDelivery: number }): Promise<void> {
  await db('queue_depth_samples')
    .insert({ at: db.raw(`date_trunc('minute', now())`), ingest: depth.ingest, lead_delivery: depth.leadDelivery, webhook_delivery: depth.webhookDelivery })
    .onConflict('at')
    .ignore();
  await db('queue_depth_samples')
    .where('at', '<', db.raw(`now() - make_interval(days => ?)`, [SAMPLES_KEPT_DAYS]))
    .delete();
}
