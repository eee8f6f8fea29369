import type { FilterExpr } from '../../lib/odata-filter.js';

/**
 * What the RESO EntityEvent route adds to a collection read (docs/reso.md, Replication with
 * EntityEvent): the client's checkpoint, read from its filter, checked against the start of the
 * log's window, and each event's ResourceRecordUrl made absolute. Pure.
 */

const SEQUENCE = 'EntityEventSequence';

/**
 * The first position the filter asks for (`EntityEventSequence gt N` is N + 1, `ge N` is N), from
 * the comparisons every match must pass (those joined by `and` at the top); null when it sets no
 * lower bound.
 */
export function firstWantedSequence(filter: FilterExpr | undefined): bigint | null {
  if (!filter) return null;
  if (filter.kind === 'and') {
    const left = firstWantedSequence(filter.left);
    const right = firstWantedSequence(filter.right);
    if (left === null) return right;
    if (right === null) return left;
    return left > right ? left : right;
  }
  if (filter.kind !== 'compare') return null;
  let { left, right, op } = filter;
  if (left.kind === 'literal' && right.kind === 'field') {
    [left, right] = [right, left];
    op = op === 'lt' ? 'gt' : op === 'le' ? 'ge' : op === 'gt' ? 'lt' : op === 'ge' ? 'le' : op;
  }
  if (left.kind !== 'field' || left.name !== SEQUENCE || right.kind !== 'literal' || right.literal.kind !== 'number') return null;
  if (!/^-?\d{1,18}$/.test(right.literal.value)) return null;
  const n = BigInt(right.literal.value);
  if (op === 'gt') return n + 1n;
  if (op === 'ge' || op === 'eq') return n;
  return null;
}

/** The sentence a client gets when its checkpoint is older than the log's window. */
export function expiredCheckpointMessage(wanted: bigint, completeFrom: number, windowDays: number): string {
  return (
    `EntityEventSequence ${wanted} is before the oldest event kept (${completeFrom}; events are kept ${windowDays} days), so events after your ` +
    'checkpoint may be missing: replicate from scratch (note the newest EntityEventSequence, read every record, then follow the events after that sequence)'
  );
}

/** The URL of one record: `Property('OFF1%2FL1')` under the service root (the key quoted as OData quotes it, then escaped). */
export const recordUrl = (root: string, resource: string, key: string): string => `${root}/${resource}('${encodeURIComponent(key.replace(/'/g, "''"))}')`;

/**
 * Each event's ResourceRecordUrl made from what the query gave it (the resource's name, a space and
 * the record's key) into the record's absolute URL. Events are a few small members each.
 */
export function absoluteRecordUrls(records: string[], root: string): string[] {
  return records.map((json) => {
    const event = JSON.parse(json) as { ResourceRecordUrl?: string };
    if (typeof event.ResourceRecordUrl !== 'string') return json;
    const space = event.ResourceRecordUrl.indexOf(' ');
    event.ResourceRecordUrl = recordUrl(root, event.ResourceRecordUrl.slice(0, space), event.ResourceRecordUrl.slice(space + 1));
    return JSON.stringify(event);
  });
}
