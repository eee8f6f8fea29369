/**
 * URLs the service publishes (site settings, navigation, listing media and links) are http(s) or,
 * where a page of this site is meant, a site-relative path. Anything else (javascript:, data:,
 * vbscript:, protocol-relative //host) is refused on write and left out on output; what is kept is
 * the URL as the WHATWG parser serialises it, so characters such as `"`, `<` and spaces arrive
 * percent-encoded.
 */

/**
 * The longest URL read (docs/security.md, Text the parsers read): what a stored text keeps
 * (pipeline/text-limits.ts, TEXT_LIMITS.other). A longer one would be stored cut, so no longer the
 * same address: it is refused unread, like any other URL that is not one.
 */
export const URL_MAX_CHARS = 2_000;

/** True when a text is too long to be a URL the service keeps (trimmed only when that could matter). */
export const tooLongForUrl = (raw: string) => raw.length > URL_MAX_CHARS && raw.trim().length > URL_MAX_CHARS;

/** An absolute http(s) URL, serialised; null for anything else. */
export function httpUrl(raw: string): string | null {
  if (tooLongForUrl(raw)) return null;
  try {
    const url = new URL(raw.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    // The parser encodes these in a path or query, not in a host name: such a host is no real one.
    return /["<>`\s]/.test(url.href) ? null : url.href;
  } catch {
    return null;
  }
}

/** An http(s) URL, or a path on this site ("/about", not "//elsewhere"), serialised; null for anything else. */
export function linkTarget(raw: string): string | null {
  if (tooLongForUrl(raw)) return null;
  const text = raw.trim();
  if (text.startsWith('/') && !text.startsWith('//') && !text.startsWith('/\\')) {
    const url = new URL(text, 'http://site.invalid');
    return url.host === 'site.invalid' ? `${url.pathname}${url.search}${url.hash}` : null;
  }
  return httpUrl(text);
}

/** Keys of a settings object whose values are addresses (logoUrl, href, src, icon, image…). */
const URL_KEY = /(url|uri|href|src|icon|logo|image)$/i;
/** A script or inline-content scheme at the start of a value (browsers skip tabs, line breaks and spaces in it). */
const DANGEROUS = /^(javascript|vbscript|data|file|blob):/i;
const dangerous = (v: string) =>
  DANGEROUS.test(
    Array.from(v)
      .filter((c) => c.charCodeAt(0) > 0x20)
      .slice(0, 16)
      .join(''),
  );

/**
 * The settings object with every address checked: a value under an address key must be an http(s)
 * URL or a site path, and no string anywhere may start with a script or inline-content scheme
 * (javascript:, vbscript:, data:, file:, blob:). Returns the cleaned
 * value and the JSON paths that were not (the caller refuses them on write, drops them on read).
 */
export function cleanUrls(value: unknown, path = 'value'): { value: unknown; refused: string[] } {
  const refused: string[] = [];
  const walk = (v: unknown, at: string, key: string): unknown => {
    if (typeof v === 'string') {
      if (v.trim() === '' || (!URL_KEY.test(key) && !dangerous(v))) return v;
      const safe = dangerous(v) ? null : linkTarget(v);
      if (safe === null) refused.push(at);
      return safe;
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, `${at}[${i}]`, key));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, `${at}.${k}`, k)]));
    return v;
  };
  return { value: walk(value, path, ''), refused };
}
