import { LISTING_KINDS } from './listing-kinds.js';

/** A run of the root's content cut between two of its children, to be read on its own. */
export interface FeedPiece {
  /** The text, from just after the root's start tag or a root child's end to just after another root child's end (the last piece: to the end of the feed). */
  text: string;
  /** The last piece: it holds the root's end tag, if any, and whatever follows. */
  final: boolean;
  /** How many listings the feed has before this piece. */
  listingsBefore: number;
  /** Per element name, how many root children of that name come before this piece (a listing's path names its position). */
  countsBefore: Map<string, number>;
}

/** What the head of a feed allows: pieces read apart, or one reader for the whole feed. */
export type HeadVerdict = { split: true; head: string } | { split: false };

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const DQUOTE = 0x22;
const SQUOTE = 0x27;

/**
 * Cuts a REAXML feed into pieces of whole root children, so that each piece can be parsed, mapped
 * and validated apart (on a worker thread) as if the feed had been read in one pass. It only finds
 * where markup starts and ends: `<` and `>` outside comments, CDATA, processing instructions and
 * quoted attribute values, and how deep the elements nest. It checks nothing else: every piece is
 * parsed in full by a reader that starts in the state the feed is in at the cut (inside the root),
 * and a piece that does not end in that state sends the rest of the feed back to one reader.
 *
 * Only a feed whose root is `<propertyList>` and that is XML 1.0 is split; the head (everything up
 * to the end of the root's start tag) is read by the caller's own reader.
 */
export class FeedSplitter {
  /** Text since the last cut. */
  private text = '';
  /** How far text has been scanned (a construct not all here yet is scanned again when more comes). */
  private scanned = 0;
  private depth = 1;
  private rootEnded = false;
  private listings = 0;
  private readonly counts = new Map<string, number>();
  private listingsAtCut = 0;
  private countsAtCut = new Map<string, number>();
  /** Where the next double and single quote are at or after the scan position: -1 none in text, -2 not looked for yet. */
  private nextDouble = -2;
  private nextSingle = -2;

  /** pieceSize: a piece ends at the first root child's end past this many characters. */
  constructor(private readonly pieceSize: number) {}

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
    this.text += text;
    this.nextDouble = this.nextSingle = -2;
    const pieces: FeedPiece[] = [];
    while (!this.rootEnded) {
      const cut = this.scan();
      if (cut < 0) break;
      pieces.push(this.cut(cut, false));
    }
    return pieces;
  }

  /** Text pushed and not yet in a piece. */
  get rest(): string {
    return this.text;
  }

  /** The rest of the feed, as the last piece. */
  end(): FeedPiece {
    return this.cut(this.text.length, true);
  }

  private cut(end: number, final: boolean): FeedPiece {
    const piece: FeedPiece = { text: this.text.slice(0, end), final, listingsBefore: this.listingsAtCut, countsBefore: this.countsAtCut };
    this.text = this.text.slice(end);
    this.scanned = 0;
    this.nextDouble = this.nextSingle = -2;
    this.listingsAtCut = this.listings;
    this.countsAtCut = new Map(this.counts);
    return piece;
  }

  /** Scans on from where it stopped: a cut position when a root child ends past pieceSize, else -1 (more text needed, or the root has ended). */
  private scan(): number {
    const text = this.text;
    let pos = this.scanned;
    for (;;) {
      const lt = text.indexOf('<', pos);
      if (lt < 0 || lt + 9 > text.length) {
        // Nothing more, or too little to tell what the markup is: wait for more text.
        this.scanned = lt < 0 ? text.length : lt;
        return -1;
      }
      const c = text.charCodeAt(lt + 1);
      let end: number;
      let elementEnded = false;
      if (c === SLASH) {
        end = text.indexOf('>', lt + 2);
        if (end >= 0) {
          this.depth -= 1;
          elementEnded = true;
        }
      } else if (c === BANG) {
        if (text.startsWith('<!--', lt)) end = after(text.indexOf('-->', lt + 4), 2);
        else if (text.startsWith('<![CDATA[', lt)) end = after(text.indexOf(']]>', lt + 9), 2);
        else end = lt + 1; // not well-formed here: the piece's reader says so
      } else if (c === QUESTION) {
        end = after(text.indexOf('?>', lt + 2), 1);
      } else {
        end = this.startTagEnd(lt + 1);
        if (end >= 0) {
          if (this.depth === 1) this.count(text, lt + 1);
          if (text.charCodeAt(end - 1) === SLASH) elementEnded = true;
          else this.depth += 1;
        }
      }
      if (end < 0) {
        this.scanned = lt;
        return -1;
      }
      pos = end + 1;
      if (this.depth <= 0) {
        // The root's end tag: whatever follows belongs to the last piece.
        this.rootEnded = true;
        this.scanned = text.length;
        return -1;
      }
      if (elementEnded && this.depth === 1 && pos >= this.pieceSize) return pos;
    }
  }

  /** startTagEnd with the next quotes' positions remembered, so the text is searched for quotes once. */
  private startTagEnd(from: number): number {
    const text = this.text;
    let i = from;
    for (;;) {
      const gt = text.indexOf('>', i);
      if (gt < 0) return -1;
      if (this.nextDouble === -2 || (this.nextDouble >= 0 && this.nextDouble < i)) this.nextDouble = text.indexOf('"', i);
      if (this.nextSingle === -2 || (this.nextSingle >= 0 && this.nextSingle < i)) this.nextSingle = text.indexOf("'", i);
      const dq = this.nextDouble;
      const sq = this.nextSingle;
      const quote = dq >= 0 && (sq < 0 || dq < sq) ? dq : sq;
      if (quote < 0 || quote > gt) return gt;
      const close = text.indexOf(quote === dq ? '"' : "'", quote + 1);
      if (close < 0) return -1;
      i = close + 1;
    }
  }

  /** Counts a root child by name (a listing's path names its position among its namesakes), and listings. */
  private count(text: string, from: number): void {
    let i = from;
    while (i < text.length && !isNameEnd(text.charCodeAt(i))) i++;
    const name = text.slice(from, i);
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
    if (LISTING_KINDS.has(name)) this.listings += 1;
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
