import { createRequire } from 'node:module';
import type { convert as Convert } from 'html-to-text';
import type SanitizeHtml from 'sanitize-html';

/**
 * Headline and description text as the canonical record keeps it: plain text. Feeds send HTML in
 * both (escaped inside the XML, so it arrives as markup), and often escape it twice (`&amp;amp;`).
 * Plain text has the tags removed, block elements turned into line breaks and entities decoded;
 * the description also keeps a sanitized HTML variant for portals that render formatting.
 */

// html-to-text and sanitize-html (about 80 modules with their HTML and CSS parsers) are loaded when
// the first text with markup is read, not in every process's start (docs/performance.md, Start).
// Both publish CommonJS, which require() loads where it is first needed, synchronously.
const require = createRequire(import.meta.url);
let toText: typeof Convert | null = null;
let sanitizer: { sanitize: typeof SanitizeHtml; options: SanitizeHtml.IOptions } | null = null;

/** Markup or an entity: text without either is already plain and is kept as it is. */
const MARKUP = /<[A-Za-z/!]|&(?:[A-Za-z]+|#\d+|#x[0-9A-Fa-f]+);/;
/** An entity escaped once more (`&amp;amp;`, `&amp;lt;p&amp;gt;`). */
const DOUBLE_ESCAPED = /&amp;((?:[A-Za-z]+|#\d+|#x[0-9A-Fa-f]+);)/g;
const TAG = /<[A-Za-z/!]/;

/** Undoes escaping applied twice (at most a few times over). */
function undoDoubleEscaping(text: string): string {
  let out = text;
  for (let i = 0; i < 4; i += 1) {
    const next = out.replace(DOUBLE_ESCAPED, '&$1');
    if (next === out) break;
    out = next;
  }
  return out;
}

/**
 * How deep markup is read (docs/security.md, Text the parsers read): html-to-text walks the element
 * tree recursively and ran out of stack at about 3,000 levels (10,000 characters of `<b>`), so
 * what lies deeper than this is left out. Real descriptions nest a dozen levels at most.
 */
export const MARKUP_MAX_DEPTH = 64;
/** What html-to-text puts where it left deeper markup out: a character no feed text keeps (every reader strips it). */
const LEFT_OUT = '\u0000';

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } }));
const TO_TEXT = {
  wordwrap: false as const,
  limits: { maxDepth: MARKUP_MAX_DEPTH, ellipsis: LEFT_OUT },
  selectors: [{ selector: 'a', options: { ignoreHref: true } }, { selector: 'img', format: 'skip' }, { selector: 'table', format: 'block' }, ...HEADINGS],
};

/** True when the text has markup or entities to read (plain text is kept as it is). */
export function needsReading(text: string): boolean {
  return MARKUP.test(text);
}

/**
 * Text with markup made plain: tags removed, blocks and <br> as line breaks, entities decoded,
 * escaping undone. Markup nested deeper than MARKUP_MAX_DEPTH is left out, and tooDeep() told.
 */
export function plainText(text: string, tooDeep?: () => void): string {
  if (!MARKUP.test(text)) return text;
  toText ??= (require('html-to-text') as { convert: typeof Convert }).convert;
  let plain = toText(undoDoubleEscaping(text), TO_TEXT);
  if (plain.includes(LEFT_OUT)) {
    plain = plain.replaceAll(LEFT_OUT, '');
    tooDeep?.();
  }
  return plain
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** True when the text carries HTML tags (so a sanitized HTML variant is worth keeping). */
export function hasMarkup(text: string): boolean {
  return TAG.test(text);
}

/** sanitize-html, loaded, with the options of the HTML variant. */
function loadSanitizer(): { sanitize: typeof SanitizeHtml; options: SanitizeHtml.IOptions } {
  const sanitize = require('sanitize-html') as typeof SanitizeHtml;
  const options: SanitizeHtml.IOptions = {
    allowedTags: ['p', 'br', 'b', 'strong', 'i', 'em', 'u', 'ul', 'ol', 'li', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'a'],
    allowedAttributes: { a: ['href'] },
    allowedSchemes: ['http', 'https'],
    allowedSchemesAppliedToAttributes: ['href'],
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
    transformTags: { h1: 'h2', div: 'p', a: sanitize.simpleTransform('a', { rel: 'nofollow noopener', target: '_blank' }) },
  };
  // rel and target are set by the transform, not taken from the feed.
  options.allowedAttributes = { a: ['href', 'rel', 'target'] };
  return { sanitize, options };
}

/** The HTML variant: allow-listed formatting tags only; no script, style, event handlers or non-http(s) links. */
export function sanitizedHtml(text: string): string {
  sanitizer ??= loadSanitizer();
  return sanitizer.sanitize(undoDoubleEscaping(text), sanitizer.options).trim();
}
