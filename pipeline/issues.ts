import { detached } from './detached-string.js';
import type { Issue } from './types.js';

/**
 * The longest issue message kept: messages quote what the feed sent, and a feed's text has no
 * length of its own, so a longer one is cut (ending in `…`) rather than stored and sent whole.
 */
export const ISSUE_MESSAGE_MAX_CHARS = 1_000;

function bounded(message: string): string {
  if (message.length <= ISSUE_MESSAGE_MAX_CHARS) return message;
  // Never half a surrogate pair at the end (PostgreSQL's jsonb refuses one).
  const last = message.charCodeAt(ISSUE_MESSAGE_MAX_CHARS - 2);
  return `${message.slice(0, last >= 0xd800 && last <= 0xdbff ? ISSUE_MESSAGE_MAX_CHARS - 2 : ISSUE_MESSAGE_MAX_CHARS - 1)}…`;
}

/**
 * Collects the issues of one listing, stamping each with the listing's index and uniqueId. A
 * feed's issues are kept until it is done, so their texts are detached from the feed's text.
 */
export class ListingIssues {
  readonly list: Issue[] = [];
  uniqueId: string | null = null;

  constructor(readonly listingIndex: number | null) {}

  error(code: string, message: string, path: string): void {
    this.add({ level: 'error', code, message, listingIndex: this.listingIndex, uniqueId: null, path });
  }

  warning(code: string, message: string, path: string): void {
    this.add({ level: 'warning', code, message, listingIndex: this.listingIndex, uniqueId: null, path });
  }

  add(issue: Issue): void {
    const uniqueId = typeof issue.uniqueId === 'string' ? detached(issue.uniqueId) : this.uniqueId;
    this.list.push({ ...issue, message: detached(bounded(issue.message)), path: detached(issue.path), uniqueId });
  }

  get hasErrors(): boolean {
    return this.list.some((i) => i.level === 'error');
  }

  /** An independent copy, for deciding a listing again without adding to its issues twice. */
  copy(): ListingIssues {
    const copy = new ListingIssues(this.listingIndex);
    copy.uniqueId = this.uniqueId;
    copy.list.push(...this.list);
    return copy;
  }

  /** Fills in the uniqueId on issues recorded before it was known. */
  stampUniqueId(uniqueId: string): void {
    this.uniqueId = detached(uniqueId);
    for (const issue of this.list) issue.uniqueId ??= this.uniqueId;
  }
}

/** The warning every reader gives where it removed characters XML and PostgreSQL cannot keep. */
export function strippedWarning(issues: ListingIssues, path: string, count: number): void {
  issues.warning(
    'invalid_character_stripped',
    `${count} character(s) not allowed in XML or PostgreSQL text (control characters such as NUL) were removed`,
    path,
  );
}

/** Where an issue would be: the path, or how to build it when an issue is raised (paths cost string work on every listing). */
export type PathRef = string | (() => string);

export const resolvePath = (path: PathRef): string => (typeof path === 'string' ? path : path());
