import { Parser } from 'htmlparser2';
import { tooLongForUrl } from '../../lib/safe-url.js';
import type { ListingIssues } from '../issues.js';
import { readUrl } from '../reaxml/map-media.js';
import type { CanonicalListing } from '../types.js';

type Links = CanonicalListing['links'];

/** A host name and path with no scheme ("tour.example.net/t/1"), as some MLS exports send tour URLs. */
const SCHEMELESS = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}(?::\d+)?(?:[/?#]|$)/i;

/**
 * A tour or video URL: http(s) as given, or a scheme-less one read as https with a warning
 * (`link_scheme_assumed`); null, with `invalid_link_url`, for anything else.
 */
export function linkUrl(raw: string, field: string, issues: ListingIssues, path: string): string | null {
  const url = readUrl(raw);
  if (url) return url;
  if (!tooLongForUrl(raw) && SCHEMELESS.test(raw.trim())) {
    const https = readUrl(`https://${raw.trim()}`);
    if (https) {
      issues.warning('link_scheme_assumed', `${field} "${raw}" has no scheme; read as ${https}`, path);
      return https;
    }
  }
  issues.warning('invalid_link_url', `${field} "${raw}" is not an http(s) URL; skipped`, path);
  return null;
}

/** Hosts (and their subdomains) whose embedded players are listing videos or 3D tours. */
const VIDEO_HOSTS = ['youtube.com', 'youtube-nocookie.com', 'youtu.be', 'vimeo.com', 'wistia.com', 'wistia.net', 'matterport.com', 'dailymotion.com'];

const isVideoHost = (url: string) => {
  const host = new URL(url).hostname.toLowerCase();
  return VIDEO_HOSTS.some((known) => host === known || host.endsWith(`.${known}`));
};

/**
 * The most of a MediaHTML fragment read (docs/security.md, Text the parsers read): a player's
 * embed code is a few hundred characters, and its element comes first.
 */
export const MEDIA_HTML_MAX_CHARS = 10_000;

/** The src of the first iframe, video, source or embed element in an HTML fragment, as the HTML parser reads it. */
function embeddedSrc(fragment: string): string | null {
  const html = fragment.slice(0, MEDIA_HTML_MAX_CHARS);
  let src: string | null = null;
  const parser = new Parser({
    onopentag(name, attributes) {
      if (src === null && ['iframe', 'video', 'source', 'embed'].includes(name) && attributes.src) src = attributes.src;
    },
  });
  parser.end(html);
  return src;
}

/**
 * A video given only as MediaHTML (an embedded player): its URL when the player is on a known
 * video host (YouTube, Vimeo, Wistia, Matterport, Dailymotion); otherwise null with a warning.
 */
export function embeddedVideoUrl(html: string, issues: ListingIssues, path: string): string | null {
  const src = embeddedSrc(html);
  const url = src ? readUrl(src.startsWith('//') ? `https:${src}` : src) : null;
  if (url && isVideoHost(url)) return url;
  issues.warning(
    'unknown_embedded_media',
    url ? `MediaHTML embeds ${url}, not a known video host; skipped` : 'MediaHTML has no embedded player with an http(s) address; skipped',
    path,
  );
  return null;
}

/** The links with each URL once (the first kept): a tour is often both a Media entry and VirtualTourURLUnbranded. */
export function uniqueLinks(links: Links): Links {
  const seen = new Set<string>();
  return links.filter((link) => !seen.has(link.url) && seen.add(link.url));
}
