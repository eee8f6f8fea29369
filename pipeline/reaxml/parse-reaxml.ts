import { characterEntities } from 'character-entities';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { CONTROL_CHARACTERS, hasControlCharacters } from '../control-characters.js';
import { FeedSyntaxError } from '../feed-syntax-error.js';
import type { Issue } from '../types.js';
import { ElementNode, type XmlNode } from '../xml-node.js';
import { KNOWN_ROOT_EXTRAS, LISTING_KINDS } from './listing-kinds.js';
import { CREDENTIAL_ATTRIBUTES } from './scrub-credentials.js';

export interface ParsedListing {
  node: XmlNode;
  /** 0-based position among the feed's listings. */
  index: number;
  /** The listing's text as sent, from after its start tag to the end of its end tag (attributes are on node). */
  source: string;
  /**
   * Where source starts in the text this parser was given, when source is exactly that slice of it;
   * null when characters were removed from it (those XML does not allow).
   */
  sourceAt: number | null;
}

export interface ReaxmlParserHandlers {
  onListing(listing: ParsedListing): void;
  /** Issues found while reading (stripped characters, ignored elements). */
  onIssue(issue: Issue, listingIndex: number | null, node: XmlNode | null): void;
}

/**
 * XML's predefined entities and every HTML5 named character reference (CRMs copy `&nbsp;`,
 * `&iacute;`, `&rarr;` from rich-text fields), from a maintained table. Each maps to literal text,
 * never to markup, so nothing expands recursively. The table has no prototype: `&constructor;` is
 * as undefined as any other unknown name.
 */
const ENTITIES: Readonly<Record<string, string>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, string>, characterEntities, { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }),
);

const MAX_DEPTH = 64;

/** What a reader of one piece of a feed (see split-feed.ts) starts from: the feed as read up to the piece. */
export interface PieceStart {
  /** Listings before the piece. */
  listingsBefore: number;
  /** Per name, root children before the piece. */
  countsBefore: Map<string, number>;
}

/** The start tag a piece's reader is given before the piece: the state the feed is in at the cut. */
export const PIECE_PREFIX = '<propertyList>';

/**
 * Streaming REAXML reader: feed it text with write(), then close(). It accepts a propertyList
 * root or a single listing element as root, builds a small tree per listing and hands it on,
 * so memory stays flat whatever the feed size. Throws FeedSyntaxError for anything that makes
 * the whole feed unreadable.
 */
export class ReaxmlParser {
  private readonly sax = new SaxesParser({ position: true });
  private readonly stack: XmlNode[] = [];
  /** Same-name counters of the root's children (a listing's path names its 1-based position); positions inside a listing are counted when a path is asked for. */
  private readonly rootChildCounts = new Map<string, number>();
  private rootName: string | null = null;
  private listingDepth = -1;
  private listingCount = 0;
  private depth = 0;
  private failure: FeedSyntaxError | null = null;
  /** Offsets (in the cleaned stream) of characters removed before parsing, not yet reported. */
  private readonly strippedAt: number[] = [];
  /** Offsets (in the cleaned stream) of U+FFFD, the decoder's mark for bytes it could not read, not yet reported. */
  private readonly replacedAt: number[] = [];
  private cleanedOffset = 0;
  /**
   * Characters removed from the text given (a byte-order mark, those XML does not allow), so that a
   * listing's source can be placed in it: how many were removed before the open listing's source;
   * where (in the cleaned stream) those removed from the chunk being read sat, in order, not yet
   * counted; and whether any was removed from the open listing's source.
   */
  private removedBefore = 0;
  private readonly removedAt: number[] = [];
  private removedInListing = false;
  private started = false;
  /** Text of the stream from windowStart on, kept while a listing is open so its source can be sliced out. */
  private window = '';
  private windowStart = 0;
  private listingStart = 0;
  /** The last entity name looked up that is not defined (saxes's error does not name it). */
  private undefinedEntity: string | null = null;

  /** piece: read a piece of a feed cut by FeedSplitter, from inside the root, as the whole feed's reader would. */
  constructor(
    private readonly handlers: ReaxmlParserHandlers,
    piece?: PieceStart,
  ) {
    // Lookups go through own properties only, and an unknown name is remembered for the error.
    this.sax.ENTITIES = new Proxy(ENTITIES, {
      get: (table, name) => {
        if (typeof name === 'string' && Object.hasOwn(table, name)) return table[name];
        if (typeof name === 'string') this.undefinedEntity = name;
        return undefined;
      },
    });
    this.sax.on('doctype', (doctype) => {
      // The DOCTYPE is never fetched; declarations inside it are refused outright so no
      // entity can ever be defined, let alone expanded (billion laughs, XXE).
      if (/<!ENTITY/i.test(doctype)) this.fail('DOCTYPE entity declarations are not allowed');
    });
    this.sax.on('opentag', (tag) => this.openTag(tag as SaxesTagPlain));
    this.sax.on('text', (text) => this.addText(text));
    this.sax.on('cdata', (text) => this.addText(text));
    this.sax.on('closetag', () => this.closeTag());
    this.sax.on('error', (err) => {
      let reason = err.message.replace(/^(?:[^:\d][^:]*:)?\d+:\d+: /, '').replace(/\.$/, '');
      if (reason === 'undefined entity' && this.undefinedEntity !== null) {
        reason = `undefined entity &${this.undefinedEntity}; (only XML's five and HTML's named character references are read)`;
      }
      this.fail(`XML is not well-formed: ${reason}`);
    });
    if (piece) {
      this.write(PIECE_PREFIX);
      this.listingCount = piece.listingsBefore;
      for (const [name, count] of piece.countsBefore) this.rootChildCounts.set(name, count);
    }
  }

  /** Inside a propertyList root, between its children, with nothing wrong so far (where a feed's head ends). */
  get insideRoot(): boolean {
    return this.failure === null && this.rootName === 'propertyList' && this.depth === 1;
  }

  /** Where the parser is: 1-based line, 0-based column (code points), as saxes counts them. */
  get position(): { line: number; column: number } {
    return { line: this.sax.line, column: this.sax.column };
  }

  /**
   * Ends a piece that is not the feed's last: true when it ended where the feed's reader would be
   * between two root children (inside the root, no markup open); false when the cut was not there.
   */
  endPiece(): boolean {
    if (this.failure || this.depth !== 1 || this.listingDepth >= 0) return false;
    try {
      this.sax.write('</propertyList>');
    } catch {
      return false;
    }
    return this.failure === null && (this.depth as number) === 0;
  }

  write(chunk: string): void {
    if (this.failure) throw this.failure;
    if (!this.started) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) {
        chunk = chunk.slice(1); // byte-order mark
        this.removedBefore += 1;
      }
    }
    if (chunk.length === 0) return;
    if (hasControlCharacters(chunk)) chunk = this.strip(chunk);
    this.noteReplacements(chunk);
    this.cleanedOffset += chunk.length;
    this.window += chunk;
    this.sax.write(chunk);
    if (this.failure) throw this.failure;
    if (this.removedAt.length > 0) {
      // What was removed from this chunk and not yet placed lies in the open listing, or before the next.
      if (this.listingDepth >= 0) this.removedInListing = true;
      else this.removedBefore += this.removedAt.length;
      this.removedAt.length = 0;
    }
    if (this.listingDepth < 0) {
      this.window = '';
      this.windowStart = this.cleanedOffset;
    } else if (this.listingStart > this.windowStart) {
      this.window = this.window.slice(this.listingStart - this.windowStart);
      this.windowStart = this.listingStart;
    }
  }

  close(): { listings: number } {
    if (this.failure) throw this.failure;
    if (this.cleanedOffset === 0 && this.rootName === null) {
      throw new FeedSyntaxError('feed is empty', 1, 1);
    }
    // saxes resets its position on close; remember where the document ended.
    const [line, column] = [this.sax.line, this.sax.column + 1];
    this.sax.close();
    if (this.failure) throw this.failure;
    if (this.rootName === null) throw new FeedSyntaxError('feed has no root element', line, column);
    if (this.listingCount === 0) throw new FeedSyntaxError(`feed contains no listings (root element ${this.rootName})`, line, column);
    return { listings: this.listingCount };
  }

  private fail(reason: string): never {
    this.failure ??= new FeedSyntaxError(reason, this.sax.line, this.sax.column + 1);
    throw this.failure;
  }

  private strip(chunk: string): string {
    let removed = 0;
    return chunk.replace(CONTROL_CHARACTERS, (_m, offset: number) => {
      this.strippedAt.push(this.cleanedOffset + offset - removed);
      this.removedAt.push(this.cleanedOffset + offset - removed);
      removed += 1;
      return '';
    });
  }

  /** The root's username/password (FTP credentials some CRMs send): never stored, and worth telling the sender. */
  private reportCredentials(attributes: Record<string, string>): void {
    const found = Object.keys(attributes).filter((k) => CREDENTIAL_ATTRIBUTES.has(k.toLowerCase()) && attributes[k].trim() !== '');
    if (found.length === 0) return;
    this.handlers.onIssue(
      {
        level: 'warning',
        code: 'credentials_in_feed',
        message: `the feed carries ${found.join(' and ')} on its root; they are masked before the feed is stored and never used: authenticate with the feed key instead, and leave them out of the export`,
        listingIndex: null,
        uniqueId: null,
        path: `/propertyList/@${found[0]}`,
      },
      null,
      null,
    );
  }

  /** Where the decoder put U+FFFD for bytes it could not read. */
  private noteReplacements(chunk: string): void {
    for (let i = chunk.indexOf('\uFFFD'); i !== -1; i = chunk.indexOf('\uFFFD', i + 1)) this.replacedAt.push(this.cleanedOffset + i);
  }

  /** Takes the offsets the parser has passed from the front of a list (they are in stream order). */
  private takePassed(offsets: number[]): number[] {
    const upTo = this.sax.position;
    let n = 0;
    // A character removed at upTo sat after what the parser has passed (right after an end tag, say).
    while (n < offsets.length && offsets[n] < upTo) n += 1;
    return offsets.splice(0, n);
  }

  /** A warning at the element the parser is in (its listing's, when inside one). */
  private warnAt(node: XmlNode | null, code: string, message: string): void {
    const inListing = this.listingDepth >= 0 ? this.listingCount : null;
    this.handlers.onIssue({ level: 'warning', code, message, listingIndex: inListing, uniqueId: null, path: node?.path ?? '/' }, inListing, node);
  }

  /** Reports stripped characters and undecodable bytes the parser has passed, at the element it is in. */
  private reportStripped(node: XmlNode | null): void {
    if (this.replacedAt.length > 0) {
      const replaced = this.takePassed(this.replacedAt).length;
      if (replaced > 0) {
        const message = `${replaced} character(s) could not be decoded (bytes not valid in the feed's encoding) and read as U+FFFD; check the text here and the encoding the feed declares`;
        this.warnAt(node, 'invalid_utf8_replaced', message);
      }
    }
    if (this.strippedAt.length === 0) return;
    const stripped = this.takePassed(this.strippedAt).length;
    if (stripped > 0) this.warnAt(node, 'invalid_character_stripped', `${stripped} character(s) not allowed in XML were removed`);
  }

  private openTag(tag: SaxesTagPlain): void {
    this.depth += 1;
    if (this.depth > MAX_DEPTH) this.fail(`elements are nested deeper than ${MAX_DEPTH} levels`);
    const name = tag.name;
    if (this.rootName === null) {
      this.rootName = name;
      if (name !== 'propertyList' && !LISTING_KINDS.has(name)) {
        this.fail(`root element must be propertyList or a listing element (${[...LISTING_KINDS].join(', ')}); found ${name}`);
      }
      if (name === 'propertyList') {
        this.reportStripped(null);
        this.reportCredentials(tag.attributes);
        return;
      }
    }

    const parent = this.stack[this.stack.length - 1];
    if (this.listingDepth < 0) {
      const atListingLevel = this.rootName === 'propertyList' ? this.depth === 2 : this.depth === 1;
      if (!atListingLevel) return;
      const pos = (this.rootChildCounts.get(name) ?? 0) + 1;
      this.rootChildCounts.set(name, pos);
      const path = this.rootName === 'propertyList' ? `/propertyList/${name}[${pos}]` : `/${name}`;
      if (!LISTING_KINDS.has(name)) {
        if (!KNOWN_ROOT_EXTRAS.has(name)) {
          this.handlers.onIssue(
            {
              level: 'warning',
              code: 'unknown_element_ignored',
              message: `element ${name} is not a REAXML listing kind and was ignored`,
              listingIndex: null,
              uniqueId: null,
              path,
            },
            null,
            null,
          );
        }
        return;
      }
      this.listingDepth = this.depth;
      this.listingStart = this.sax.position;
      // Characters removed up to here sat before the source (a character removed at p sat just before the cleaned stream's p-th).
      let folded = 0;
      while (folded < this.removedAt.length && this.removedAt[folded] <= this.listingStart) folded += 1;
      this.removedBefore += folded;
      this.removedAt.splice(0, folded);
      this.removedInListing = false;
      const node = new ElementNode(name, tag.attributes, null, path);
      this.stack.push(node);
      this.reportStripped(node);
      return;
    }

    const node = new ElementNode(name, tag.attributes, parent);
    parent.children.push(node);
    this.stack.push(node);
    this.reportStripped(node);
  }

  private addText(text: string): void {
    const node = this.stack[this.stack.length - 1];
    if (node) node.text += text;
    this.reportStripped(node ?? null);
  }

  private closeTag(): void {
    if (this.listingDepth >= 0 && this.stack.length > 0) {
      const node = this.stack.pop()!;
      if (this.depth === this.listingDepth) {
        this.reportStripped(node);
        this.listingDepth = -1;
        const index = this.listingCount;
        this.listingCount += 1;
        const source = this.window.slice(this.listingStart - this.windowStart, this.sax.position - this.windowStart);
        const removedInside = this.removedInListing || (this.removedAt.length > 0 && this.removedAt[0] < this.sax.position);
        const sourceAt = removedInside ? null : this.listingStart + this.removedBefore;
        this.handlers.onListing({ node, index, source, sourceAt });
      }
    }
    this.depth -= 1;
  }
}
