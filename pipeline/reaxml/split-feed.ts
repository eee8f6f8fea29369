import { CHAR } from '../../lib/char-codes.js';
import { LISTING_KINDS } from './listing-kinds.js';

/** A run of the root's content cut between two of its children, to be read on its own. */
export interface FeedPiece {
  /** The text, in parts as it arrived (joining them would copy it once more), from just after the root's start tag or a root child's end to just after another root child's end (the last piece: to the end of the feed). */
  texts: string[];
  /** The last piece: it holds the root's end tag, if any, and whatever follows. */
  final: boolean;
  /** How many listings the feed has before this piece. */
  listingsBefore: number;
  /** Per element name, how many root children of that name come before this piece (a listing's path names its position). */
  countsBefore: Map<string, number>;
}

/** What the head of a feed allows: pieces read apart, or one reader for the whole feed. */
export type HeadVerdict = { split: true; head: string } | { split: false };

const { LESS_THAN: LT, GREATER_THAN: GT, SLASH, BANG, QUESTION, DOUBLE_QUOTE: DQUOTE, SINGLE_QUOTE: SQUOTE } = CHAR;

/**
 * Cuts a REAXML feed into pieces of whole root children, so that each piece can be parsed, mapped
 * and validated apart (on a worker thread) as if the feed had been read in one pass. Between the
 * root's children it steps over comments, CDATA and processing instructions and reads each child's
 * start tag (quotes included); a child that is not empty is taken to end at the first `</name>`
 * that follows. It checks nothing else: every piece is parsed in full by a reader that starts in the
 * state the feed is in at a cut (inside the root), and a piece that does not end in that state (a
 * `</name>` inside CDATA, a comment or a namesake child; an end tag written `</name >`) sends the
 * rest of the feed back to one reader, as does text that grows past stuckAfter characters without a cut.
 *
 * Only a feed whose root is `<propertyList>` and that is XML 1.0 is split; the head (everything up
 * to the end of the root's start tag) is read by the caller's own reader.
 */
export class FeedSplitter {
  /** Scanned text since the last cut, before tail. */
  private parts: string[] = [];
  private partsLength = 0;
  /** The text being scanned, from where the last push's scan stopped. */
  private tail = '';
  private pos = 0;
  /** The end tag of the root child being stepped over. */
  private closing: string | null = null;
  private rootEnded = false;
  private listings = 0;
  private readonly counts = new Map<string, number>();
  private listingsAtCut = 0;
  private countsAtCut = new Map<string, number>();

  /** pieceSize: a piece ends at the first root child's end past this many characters; stuckAfter: past this many without a cut, the splitter is stuck. */
  constructor(
    private readonly pieceSize: number,
    private readonly stuckAfter: number,
  ) {}

  /**
   * Looks at the start of a feed (the text so far): whether it can be split, and the head (up to
   * the end of the root's start tag). Null while that is not all here.
   */
  static head(text: string): HeadVerdict | null {
    let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    for (;;) {
      const lt = text.indexOf('<', pos);
      if (lt < 0) return text.slice(pos).trim() === '' ? null : { split: false };
      if (text.slice(pos, lt).trim() !== '') return { split: false }; // text before the root: the reader says what is wrong
      if (text.length < lt + 14) return null;
      if (text.startsWith('<?', lt)) {
        const end = text.indexOf('?>', lt + 2);
        if (end < 0) return null;
        if (/^<\?xml\s[^>]*version\s*=\s*["']1\.1/.test(text.slice(lt, end))) return { split: false };
        pos = end + 2;
      } else if (text.startsWith('<!--', lt)) {
        const end = text.indexOf('-->', lt + 4);
        if (end < 0) return null;
        pos = end + 3;
      } else if (text.startsWith('<!DOCTYPE', lt)) {
        const gt = text.indexOf('>', lt);
        if (gt < 0) return null;
        if (text.slice(lt, gt).includes('[')) return { split: false }; // an internal subset: read whole
        pos = gt + 1;
      } else {
        if (!text.startsWith('<propertyList', lt) || !isNameEnd(text.charCodeAt(lt + 13))) return { split: false };
        const gt = startTagEnd(text, lt + 13);
        if (gt === -1) return null;
        if (gt < 0 || text.charCodeAt(gt - 1) === SLASH) return { split: false };
        return { split: true, head: text.slice(0, gt + 1) };
      }
    }
  }

  /** Adds the text that follows what came before (first: what follows the head); returns the pieces now complete. */
  push(text: string): FeedPiece[] {
    const pieces: FeedPiece[] = [];
    if (this.rootEnded) {
      this.keep(text);
      return pieces;
    }
    this.tail = this.pos < this.tail.length ? this.tail.slice(this.pos) + text : text;
    this.pos = 0;
    for (let cut = this.scan(); cut >= 0; cut = this.scan()) pieces.push(this.cut(cut, false));
    // What was scanned moves to parts (after the root's end, all of it); the rest is scanned again with the next text.
    if (this.rootEnded) {
      this.keep(this.tail);
      this.tail = '';
    } else if (this.pos > 0) {
      this.keep(this.tail.slice(0, this.pos));
      this.tail = this.tail.slice(this.pos);
    }
    this.pos = 0;
    return pieces;
  }

  /** True when the text since the last cut has grown past stuckAfter without a cut: read the rest on one reader. */
  get stuck(): boolean {
    return this.partsLength + this.tail.length > this.stuckAfter;
  }

  /** Text pushed and not yet in a piece. */
  get rest(): string[] {
    return [...this.parts, this.tail];
  }

  /** The rest of the feed, as the last piece. */
  end(): FeedPiece {
    return this.cut(this.tail.length, true);
  }

  private keep(text: string): void {
    this.parts.push(text);
    this.partsLength += text.length;
  }

  private cut(end: number, final: boolean): FeedPiece {
    if (end > 0) this.parts.push(this.tail.slice(0, end));
    const piece: FeedPiece = { texts: this.parts, final, listingsBefore: this.listingsAtCut, countsBefore: this.countsAtCut };
    this.parts = [];
    this.partsLength = 0;
    this.tail = this.tail.slice(end);
    this.pos = 0;
    this.listingsAtCut = this.listings;
    this.countsAtCut = new Map(this.counts);
    return piece;
  }

  /** Scans the tail on from pos: a cut position when a root child ends past pieceSize, else -1 (more text needed, or the root has ended). */
  private scan(): number {
    const text = this.tail;
    for (;;) {
      if (this.closing !== null) {
        const at = text.indexOf(this.closing, this.pos);
        if (at < 0) {
          this.pos = Math.max(this.pos, text.length - this.closing.length + 1);
          return -1;
        }
        this.pos = at + this.closing.length;
        this.closing = null;
        if (this.partsLength + this.pos >= this.pieceSize) return this.pos;
        continue;
      }
      const lt = text.indexOf('<', this.pos);
      if (lt < 0 || lt + 9 > text.length) {
        // Nothing more, or too little to tell what the markup is: wait for more text.
        this.pos = lt < 0 ? text.length : lt;
        return -1;
      }
      const c = text.charCodeAt(lt + 1);
      let end: number;
      if (c === SLASH) {
        // The root's end tag: whatever follows belongs to the last piece.
        this.rootEnded = true;
        this.pos = lt;
        return -1;
      }
      if (c === BANG) {
        if (text.startsWith('<!--', lt)) end = after(text.indexOf('-->', lt + 4), 3);
        else if (text.startsWith('<![CDATA[', lt)) end = after(text.indexOf(']]>', lt + 9), 3);
        else end = lt + 2; // not well-formed here: the piece's reader says so
      } else if (c === QUESTION) {
        end = after(text.indexOf('?>', lt + 2), 2);
      } else {
        const gt = startTagEnd(text, lt + 1);
        if (gt === -1) {
          this.pos = lt;
          return -1;
        }
        end = gt < 0 ? lt + 1 : gt + 1; // a `<` inside a start tag: not well-formed, the piece's reader says so
        const name = this.count(text, lt + 1);
        if (gt >= 0 && text.charCodeAt(gt - 1) !== SLASH) this.closing = `</${name}>`;
        else if (gt >= 0 && this.partsLength + end >= this.pieceSize) {
          this.pos = end;
          return end;
        }
      }
      if (end < 0) {
        this.pos = lt;
        return -1;
      }
      this.pos = end;
    }
  }

  /** Counts a root child by name (a listing's path names its position among its namesakes), and listings. */
  private count(text: string, from: number): string {
    let i = from;
    while (i < text.length && !isNameEnd(text.charCodeAt(i))) i++;
    const name = text.slice(from, i);
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
    if (LISTING_KINDS.has(name)) this.listings += 1;
    return name;
  }
}

const after = (found: number, length: number) => (found < 0 ? -1 : found + length);

const isNameEnd = (c: number) => c === GT || c === SLASH || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || Number.isNaN(c);

/** The `>` that ends a start tag (quote-aware) from inside it: -1 when it has not all arrived, -2 when a `<` comes first (not well-formed). */
function startTagEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === GT) return i;
    if (c === LT) return -2;
    if (c === DQUOTE || c === SQUOTE) {
      const close = text.indexOf(c === DQUOTE ? '"' : "'", i + 1);
      if (close < 0) return -1;
      i = close;
    }
  }
  return -1;
}
