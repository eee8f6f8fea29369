import { badRequest } from '../lib/errors.js';

/**
 * What a keyword search (the listing search's q) may ask (docs/reads.md, docs/security.md). q is
 * read as a web search engine reads it (PostgreSQL's websearch_to_tsquery), in each text
 * configuration, and its size decides the cost of parsing, planning and ranking it: so its words
 * and its exclusions are counted here, before any of it reaches the database. Its length (200
 * characters) is the schema's.
 */

/** Most words q may hold: runs of letters and digits, so "semi-detached" is two and "or" is one. */
export const KEYWORD_MAX_WORDS = 16;
/** Most exclusions (a - before a word, "-unit") q may make. */
export const KEYWORD_MAX_EXCLUSIONS = 4;

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** After these (or at the start, or after a space) a - excludes what follows, as websearch_to_tsquery reads it. */
const BEFORE_EXCLUSION = /[\s"!&|()<-]/u;

/**
 * The minus signs of q that websearch_to_tsquery reads as NOT: those that start a word (not the
 * hyphen inside "semi-detached"), outside quotes (a "quoted phrase" is read as words). A run of
 * them is a NOT of a NOT..., each one an operator PostgreSQL stacks: 33 in a row, with nothing
 * between, are more than it can parse (an internal error before these limits).
 */
export function exclusionsOf(q: string): number {
  let count = 0;
  let quoted = false;
  let previous = ' ';
  for (const ch of q) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '-' && BEFORE_EXCLUSION.test(previous)) count += 1;
    previous = ch;
  }
  return count;
}

/** A 400 naming the limit when q holds more exclusions or words than a keyword search takes. */
export function checkKeywords(q: string): void {
  const exclusions = exclusionsOf(q);
  if (exclusions > KEYWORD_MAX_EXCLUSIONS) {
    throw badRequest(`query.q has ${exclusions} exclusions (a - before a word); a keyword search takes at most ${KEYWORD_MAX_EXCLUSIONS}`);
  }
  const words = q.match(WORD)?.length ?? 0;
  if (words > KEYWORD_MAX_WORDS) {
    throw badRequest(`query.q has ${words} words; a keyword search takes at most ${KEYWORD_MAX_WORDS} (each part of a hyphenated word counts)`);
  }
}
