import type { Knex } from 'knex';
import type { FeedOutcome } from '../lib/feed-outcome.js';
import type { Issue, IssueLevel } from '../pipeline/types.js';
import { camelColumns, iso, isoOrNull, nextOffsetOf, offsetPage } from './row-values.js';
import type * as Row from './rows.js';

/** A feed in a key's own history: what it was, what became of it, its counts; never its body or per-listing actions. */
export interface FeedSummary {
  feedId: string;
  status: string;
  outcome: FeedOutcome;
  source: 'api' | 'sftp';
  format: string;
  mode: 'full' | 'incremental';
  officeScope: string[];
  bodyBytes: number;
  attempts: number;
  createdAt: string;
  finishedAt: string | null;
  counts: { parsed: number; valid: number; invalid: number } | null;
  summary: Record<string, number> | null;
  reconcile: string | null;
  issueCounts: { errors: number; warnings: number };
  error: string | null;
  statusUrl: string;
}

export interface FeedHistoryQuery {
  status?: string;
  /** One outcome or several, separated by commas. */
  outcome?: string;
  limit: number;
  offset: number;
}

/** A key's feeds, newest first (ties by id), filtered by status and outcome; the total counts every match. */
export async function keyFeeds(db: Knex, keyId: string, query: FeedHistoryQuery): Promise<{ total: number; feeds: FeedSummary[]; nextOffset: number | null }> {
  const base = () => {
    const q = db('feed_events').where({ key_id: keyId });
    if (query.status) q.where({ status: query.status });
    if (query.outcome) q.whereIn('outcome', query.outcome.split(','));
    return q;
  };
  type Summary = Pick<
    Row.FeedEvent,
    'id' | 'status' | 'outcome' | 'source' | 'format' | 'mode' | 'office_scope' | 'body_bytes' | 'attempts' | 'created_at' | 'finished_at' | 'error'
  > & {
    counts: FeedSummary['counts'];
    summary: FeedSummary['summary'];
    reconcile: FeedSummary['reconcile'];
    errors: number;
    warnings: number;
  };
  const { rows, total, nextOffset } = await offsetPage<Summary>(
    base,
    (q) =>
      q
        .select(
          'id',
          'status',
          'outcome',
          'source',
          'format',
          'mode',
          'office_scope',
          'body_bytes',
          'attempts',
          'created_at',
          'finished_at',
          'error',
          db.raw("result->'counts' AS counts"),
          db.raw("result->'summary' AS summary"),
          db.raw("result->'reconcile'->>'status' AS reconcile"),
          db.raw(`(SELECT count(*) FILTER (WHERE i->>'level' = 'error') FROM jsonb_array_elements(coalesce(result->'issues', '[]')) i)::int AS errors`),
          db.raw(`(SELECT count(*) FILTER (WHERE i->>'level' = 'warning') FROM jsonb_array_elements(coalesce(result->'issues', '[]')) i)::int AS warnings`),
        )
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ]),
    query,
  );
  return {
    total,
    feeds: rows.map((r) => ({
      feedId: r.id,
      ...camelColumns(r, ['status', 'outcome', 'source', 'format', 'mode', 'office_scope', 'attempts']),
      bodyBytes: Number(r.body_bytes),
      createdAt: iso(r.created_at),
      finishedAt: isoOrNull(r.finished_at),
      counts: r.counts ?? null,
      summary: r.summary ?? null,
      reconcile: r.reconcile ?? null,
      issueCounts: { errors: r.errors, warnings: r.warnings },
      error: r.error ?? null,
      statusUrl: `/v1/feeds/${r.id}`,
    })),
    nextOffset,
  };
}

export interface FeedIssueQuery {
  level?: IssueLevel;
  code?: string;
  limit: number;
  offset: number;
}

/** An issue with its place in the feed's list of issues (1-based, the same whatever the filters). */
export type NumberedIssue = Issue & { number: number };

export interface FeedIssuePage {
  /** Issues matching the filters. */
  total: number;
  /** Over all the feed's issues, whatever the filters: by level and by code. */
  counts: { errors: number; warnings: number; byCode: Record<string, number> };
  issues: NumberedIssue[];
  nextOffset: number | null;
}

/**
 * One feed's issues in feed order, filtered by level and code, with counts over all of them. The
 * issues are unpacked from the stored result by the database: only the page reaches Node.
 */
export async function feedIssues(db: Knex, feedId: string, query: FeedIssueQuery): Promise<FeedIssuePage> {
  const issues = () => {
    const q = db
      .from(db.raw(`feed_events e, jsonb_array_elements(coalesce(e.result->'issues', '[]')) WITH ORDINALITY AS t(issue, number)`))
      .where('e.id', feedId);
    if (query.level) q.whereRaw(`t.issue->>'level' = ?`, [query.level]);
    if (query.code) q.whereRaw(`t.issue->>'code' = ?`, [query.code]);
    return q;
  };
  const [rows, [{ n }], byCode] = await Promise.all([
    issues().select('t.issue', 't.number').orderBy('t.number').limit(query.limit).offset(query.offset),
    issues().count({ n: '*' }),
    db
      .from(db.raw(`feed_events e, jsonb_array_elements(coalesce(e.result->'issues', '[]')) AS t(issue)`))
      .where('e.id', feedId)
      .select(db.raw(`t.issue->>'code' AS code`), db.raw(`t.issue->>'level' AS level`))
      .count({ n: '*' })
      .groupByRaw('1, 2'),
  ]);
  const counts: FeedIssuePage['counts'] = { errors: 0, warnings: 0, byCode: {} };
  for (const r of byCode as { code: string; level: string; n: string }[]) {
    const count = Number(r.n);
    if (r.level === 'error') counts.errors += count;
    else counts.warnings += count;
    counts.byCode[r.code] = (counts.byCode[r.code] ?? 0) + count;
  }
  const total = Number(n);
  return {
    total,
    counts,
    issues: rows.map((r: { issue: Issue; number: Row.Int8 }) => ({ number: Number(r.number), ...r.issue })),
    nextOffset: nextOffsetOf(query.offset, rows.length, total),
  };
}
