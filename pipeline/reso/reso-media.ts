import { agentEmail } from '../email-address.js';
import { type MediaSource, numberMedia } from '../number-media.js';
import { readUrl } from '../reaxml/map-media.js';
import type { Agent, CanonicalListing, MediaItem } from '../types.js';
import { embeddedVideoUrl, linkUrl, uniqueLinks } from './reso-links.js';
import type { ResoFields } from './reso-values.js';

type Kind = MediaItem['kind'] | 'video' | 'tour' | 'logo' | 'skip';

/** MediaCategory to what the listing keeps: photos, floor plans, documents; videos and tours become links, an office logo its office's. */
const CATEGORIES: Readonly<Record<string, Kind>> = {
  photo: 'photo',
  floorplan: 'floorplan',
  document: 'document',
  video: 'video',
  brandedvirtualtour: 'tour',
  unbrandedvirtualtour: 'tour',
  // Not a Data Dictionary value, but what exports that do not brand their tours send.
  virtualtour: 'tour',
  agentphoto: 'skip',
  officelogo: 'logo',
  officephoto: 'skip',
};

const DOCUMENT_TYPES = new Set(['pdf', 'doc', 'docx', 'rtf', 'txt', 'xls', 'xlsx']);

interface Entry {
  item: MediaSource;
  /** Media.Order (absent: after the rest). */
  order: number;
  preferred: boolean;
}

/**
 * The Media collection: photos by Order with the hero first (PreferredPhotoYN, else Order 0,
 * else the first photo), then floor plans, then documents, numbered in that order. Videos become
 * video links and virtual tours (and VirtualTourURLUnbranded) virtual tour links, each URL once, a scheme-less one
 * read as https and one given only as an embedded player (MediaHTML) kept when the player is on a
 * known video host; agent and office pictures are not listing media, but the office logo (the first
 * by Order) is the listing office's logo.
 */
export function mapResoMedia(f: ResoFields): { media: MediaItem[]; links: CanonicalListing['links']; officeLogo: string | null } {
  const links: CanonicalListing['links'] = [];
  const entries: Entry[] = [];
  const logos: { url: string; order: number }[] = [];
  for (const { entry: m, index: i } of f.collection('Media', 'invalid_media')) {
    const href = m.text('MediaURL');
    const category = m.enumeration('MediaCategory');
    const linked = category ? CATEGORIES[category] : undefined;
    if (linked === 'video' || linked === 'tour') {
      const html = href ? null : m.text('MediaHTML');
      const url = href ? linkUrl(href, 'MediaURL', f.issues, m.pathOf('MediaURL')) : html ? embeddedVideoUrl(html, f.issues, m.pathOf('MediaHTML')) : null;
      if (url) links.push({ kind: linked === 'tour' ? 'virtualTour' : 'videoLink', url });
      else if (!href && !html)
        f.issues.warning(
          'invalid_media_url',
          `a ${linked === 'tour' ? 'virtual tour' : 'video'} Media entry has no MediaURL or MediaHTML; skipped`,
          m.pathOf('MediaURL'),
        );
      continue;
    }
    const url = href ? readUrl(href) : null;
    if (!url) {
      f.issues.warning('invalid_media_url', `MediaURL ${JSON.stringify(href)} is not an http(s) URL; skipped`, m.pathOf('MediaURL'));
      continue;
    }
    let kind: Kind | undefined = category ? CATEGORIES[category] : undefined;
    if (!kind) {
      if (category)
        f.issues.warning(
          'unknown_media_category',
          `MediaCategory "${m.text('MediaCategory')}" is not one the service keeps; read as ${DOCUMENT_TYPES.has(m.enumeration('MediaType') ?? '') ? 'a document' : 'a photo'}`,
          m.pathOf('MediaCategory'),
        );
      kind = DOCUMENT_TYPES.has(m.enumeration('MediaType') ?? '') ? 'document' : 'photo';
    }
    const order = m.number('Order');
    if (kind === 'logo') logos.push({ url, order: order ?? Number.MAX_SAFE_INTEGER });
    if (kind === 'skip' || kind === 'video' || kind === 'tour' || kind === 'logo') continue;
    const title = m.text('ShortDescription') ?? undefined;
    const source: MediaSource = { url, kind, slot: m.text('MediaKey') ?? `${i}`, ...(title ? { title } : {}) };
    entries.push({ item: source, order: order ?? Number.MAX_SAFE_INTEGER, preferred: m.flag('PreferredPhotoYN') === true });
  }
  const tour = f.text('VirtualTourURLUnbranded');
  const tourUrl = tour ? linkUrl(tour, 'VirtualTourURLUnbranded', f.issues, f.pathOf('VirtualTourURLUnbranded')) : null;
  if (tourUrl) links.push({ kind: 'virtualTour', url: tourUrl });

  const byOrder = (kind: MediaItem['kind']) => entries.filter((e) => e.item.kind === kind).sort((a, b) => a.order - b.order);
  const photos = byOrder('photo');
  const hero = photos.find((p) => p.preferred) ?? photos.find((p) => p.order === 0) ?? photos[0];
  const sources = (list: Entry[]) => list.map((e) => e.item);
  const media = numberMedia(sources(photos), sources(byOrder('floorplan')), sources(byOrder('document')), hero?.item);
  const officeLogo = logos.sort((a, b) => a.order - b.order)[0]?.url ?? null;
  return { media, links: uniqueLinks(links), officeLogo };
}

const PHONES = [
  ['DirectPhone', 'direct'],
  ['MobilePhone', 'mobile'],
  ['OfficePhone', 'office'],
  ['PreferredPhone', 'preferred'],
] as const;

/** ListAgent* and CoListAgent* fields, in that order; an agent with no name, email or phone is none. */
export function mapResoAgents(f: ResoFields): Agent[] {
  const agents: Agent[] = [];
  for (const [prefix, slot] of [
    ['ListAgent', '1'],
    ['CoListAgent', '2'],
  ] as const) {
    const name = f.text(`${prefix}FullName`) ?? ([f.text(`${prefix}FirstName`), f.text(`${prefix}LastName`)].filter(Boolean).join(' ') || null);
    const email = agentEmail(f.text(`${prefix}Email`), `${prefix}Email`, f.issues, f.pathOf(`${prefix}Email`));
    const phones: Agent['phones'] = [];
    for (const [field, type] of PHONES) {
      const number = f.text(`${prefix}${field}`);
      if (number && !phones.some((p) => p.number === number)) phones.push({ type, number });
    }
    if (!name && !email && phones.length === 0) continue;
    const duplicate = agents.some((a) => (a.email ?? a.name)?.toLowerCase() === (email ?? name)?.toLowerCase());
    if (duplicate) continue;
    agents.push({ name, email, phones, sourceAgentId: f.text(`${prefix}Key`) ?? f.text(`${prefix}MlsId`), slot });
  }
  return agents;
}
