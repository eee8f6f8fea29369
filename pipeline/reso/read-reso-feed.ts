import { stripJsonControlCharacters } from '../control-characters.js';
import { type FeedListing, sourceFingerprint, sourceSalt } from '../feed-listing.js';
import { FeedSyntaxError } from '../feed-syntax-error.js';
import { ListingIssues, strippedWarning } from '../issues.js';
import { JSON_DOCUMENT_NAMES, parseJsonDocument } from '../json-document.js';
import { capDeltaText } from '../text-limits.js';
import type { FeedContext, ListingDelta } from '../types.js';
import { mapResoRecord, readResoIdentity } from './map-reso.js';
import { ResoFields, type ResoRecord } from './reso-values.js';

/** Bump when a mapping change alters what an unchanged RESO record maps to. */
export const RESO_MAPPING_VERSION = 8; // 2: Data Dictionary extras; 3: MLS export shapes (rent frequency, areas, links, display rules, removals, facts), milliseconds; 4: the office logo; 5: quoted email local parts kept quoted; 6: emails, dates, URLs and UnparsedAddress read within their bounds; 7: real-feed defects (issue 61): Australian states spelt out stored as their abbreviation, StandardStatus kept (standardStatus), virtual tours as virtualTour links; 8: an expanded OpenHouse collection as open homes

/** RESO has no headline; remarks and the address live under their Data Dictionary names. */
const RESO_FIELD_PATHS = { headline: null, description: '/PublicRemarks', address: '/UnparsedAddress' } as const;

/** The record without annotation keys (`@odata.id`, `@odata.etag`, ...): they are not content. */
function withoutAnnotations(record: Record<string, unknown>): ResoRecord {
  const out: ResoRecord = {};
  for (const [k, v] of Object.entries(record)) if (!k.startsWith('@')) out[k] = v;
  return out;
}

/**
 * Reads a RESO Web API payload (docs/architecture.md, Formats and mapping): one Property record (fetch by key, RESO Common
 * Format single) or a collection `{ "@odata.context", "value": [...] }`. Keys beginning with `@`
 * are ignored. Paths are JSON Pointers (`/value/3/ListPrice`). Throws FeedSyntaxError when the
 * document is not JSON or holds no records.
 */
export function readResoDocument(text: string, feed: FeedContext): FeedListing[] {
  const doc = parseJsonDocument(text, JSON_DOCUMENT_NAMES.reso);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new FeedSyntaxError('a RESO document is a Property record or a collection { "value": [ ... ] }', 1, 1);
  }
  const body = doc as Record<string, unknown>;
  const collection = 'value' in body;
  if (collection && !Array.isArray(body.value)) throw new FeedSyntaxError('"value" of a RESO collection must be an array of records', 1, 1);
  const records: unknown[] = collection ? (body.value as unknown[]) : [body];
  if (records.length === 0) throw new FeedSyntaxError('the RESO collection has no records', 1, 1);
  const salt = sourceSalt('reso', RESO_MAPPING_VERSION, feed);

  return records.map((raw, index) => {
    const path = collection ? `/value/${index}` : '';
    const issues = new ListingIssues(index);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      issues.error('invalid_record', 'a RESO record must be an object', path);
      return { index, path, identity: null, issues, sourceHash: () => '', delta: () => null };
    }
    const record = stripJsonControlCharacters(withoutAnnotations(raw as Record<string, unknown>), path, (at, n) =>
      strippedWarning(issues, at, n),
    ) as ResoRecord;
    const fields = new ResoFields(record, path, issues);
    const { office, uniqueId, officeProblem } = readResoIdentity(new ResoFields(record, path, new ListingIssues(index)), feed);
    let delta: ListingDelta | null | undefined;
    let hash: string | undefined;
    return {
      index,
      path,
      identity: office && uniqueId && !officeProblem ? { office, uniqueId } : null,
      issues,
      sourceHash: () => (hash ??= sourceFingerprint(salt, JSON.stringify(record))),
      delta: () => {
        if (delta === undefined) {
          const mapped = mapResoRecord(fields, feed);
          delta = mapped && capDeltaText(mapped, issues, path);
        }
        return delta;
      },
      fieldPaths: RESO_FIELD_PATHS,
    };
  });
}
