import type { Knex } from 'knex';
import { LITERAL } from '../prepared-statements.js';
import { searchFilters } from './filters.js';
import type { ListingSearch } from './search.js';

/**
 * The relevance order of a keyword search over a bounded set of candidates (docs/reads.md,
 * Relevance): ranking is the costly part of a keyword search (each listing's whole text read and
 * scored), and a common word matches most listings, so a search ranks at most two pools of
 * `candidates` listings each, found in index order, never every match.
 */

/** How many listings each candidate pool of a relevance search holds by default (SEARCH_RELEVANCE_CANDIDATES). */
export const RELEVANCE_CANDIDATES = 500;

/**
 * The strongly weighted text of a listing: its headline (A), public address and agents' names (B),
 * without the description (C). listings_shown_strong_text_idx indexes exactly this expression
 * (db/migrations/20261128170000_strong_text_index.ts), so a word that is in every description
 * but in no headline finds no strong match at once.
 */
export const STRONG_TEXT_SQL = `ts_filter(search_tsv, '{a,b}')`;

/**
 * The candidates of a relevance search: its `candidates` newest matches in the headline, address
 * or agents' names (the strong pool, so that a title match is ranked however many passing mentions
 * are newer), together with its `candidates` newest matches anywhere (so that a search whose words
 * are only in descriptions still has candidates). Newest is modTime then listing key, as the
 * newest-first index reads them: for a common word PostgreSQL walks that index and stops at the
 * bound, for a rare one it reads the word's few matches from the text index and sorts them. Both
 * pools are fixed by the search alone (not by the page or the cursor), so every page of a search
 * ranks the same candidates.
 */
function candidateKeys(db: Knex, s: ListingSearch, candidates: number): Knex.Raw {
  const pool = () => searchFilters(db, s).select('listing_key').orderByRaw('mod_time DESC, listing_key').limit(candidates, LITERAL);
  // Stop words only: the filters match nothing, and an empty text query has nothing strong.
  if (!s.tsquery) return db.raw('(?)', [pool()]);
  return db.raw('((?) UNION (?))', [pool().whereRaw(`${STRONG_TEXT_SQL} @@ ?::tsquery`, [s.tsquery]), pool()]);
}

/**
 * The page keys of a relevance search: its candidates ranked by ts_rank_cd (the headline weighing
 * most, then the address and agents, then the description; words close together above words
 * apart), best first (worst first reversed), ties by listing key, from its offset or after its
 * cursor, with the rank as sort_value. A page past the candidates is empty.
 */
export function rankedCandidates(db: Knex, s: ListingSearch, candidates: number): Knex.QueryBuilder {
  const rank = 'ts_rank_cd(listings.search_tsv, ?::tsquery)';
  const query = s.tsquery ?? '';
  const desc = !s.sort.reverse;
  const keys = db
    .from(db.raw('? AS candidates', [candidateKeys(db, s, candidates)]))
    .join('listings', 'listings.listing_key', 'candidates.listing_key')
    .select(db.raw(`${rank} AS sort_value`, [query]), 'candidates.listing_key')
    .orderByRaw(`sort_value ${desc ? 'DESC' : 'ASC'}, candidates.listing_key ${desc ? 'ASC' : 'DESC'}`);
  if (s.after) {
    const [op, keyOp] = desc ? ['<', '>'] : ['>', '<'];
    keys.whereRaw(`(${rank} ${op} ?::float4 OR (${rank} = ?::float4 AND candidates.listing_key ${keyOp} ?))`, [
      query,
      s.after.value,
      query,
      s.after.value,
      s.after.key,
    ]);
  }
  return keys;
}
