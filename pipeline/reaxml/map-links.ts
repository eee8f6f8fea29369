import type { LinkKind, ListingDelta } from '../types.js';
import { attr, child, childrenNamed, type XmlNode } from '../xml-node.js';
import type { MapContext } from './map-context.js';
import { readUrl } from './map-media.js';

const LINK_KINDS: ReadonlySet<string> = new Set(['externalLink', 'videoLink', 'availabilityLink']);

/**
 * externalLink, videoLink, availabilityLink (href) and miniweb's uris, as http(s) links: an empty
 * href removes the link, anything else that is not an http(s) URL is skipped with a warning. A
 * record with any of these elements replaces the stored links.
 */
export function mapLinks(ctx: MapContext, node: XmlNode, delta: ListingDelta): void {
  const linkNodes = node.children.filter((c) => LINK_KINDS.has(c.name));
  const miniweb = child(node, 'miniweb');
  if (!linkNodes.length && !miniweb) return;
  delta.links = [];
  const links = [
    ...linkNodes.map((link) => ({ kind: link.name as LinkKind, href: attr(link, 'href') ?? '', path: `${link.path}/@href` })),
    ...(miniweb ? childrenNamed(miniweb, 'uri').map((uri) => ({ kind: 'miniweb' as const, href: uri.text, path: uri.path })) : []),
  ];
  for (const link of links) {
    if (link.href.trim() === '') continue;
    const url = readUrl(link.href);
    if (url) delta.links.push({ kind: link.kind, url });
    else ctx.issues.warning('invalid_link_url', `${link.kind} "${link.href}" is not an http(s) URL; skipped`, link.path);
  }
}
