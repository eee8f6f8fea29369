import { httpUrl, tooLongForUrl } from '../../lib/safe-url.js';
import type { MediaItem, SlotMap } from '../types.js';
import { attr, type XmlNode } from '../xml-node.js';
import { type MapContext, readDate } from './map-context.js';

type Slot = Omit<MediaItem, 'order' | 'hero'>;

/** m (the hero), a..z, aa..az: the slot ids feeds use for photos. */
const PHOTO_SLOT = /^(m|[a-z]|a[a-z])$/;

/** Sort position of a slot: m first, then a..z, then aa.., numeric slots by number. */
export function slotRank(slot: string): number {
  if (slot === 'm') return -1;
  const first = slot.charCodeAt(0);
  if (slot.length === 1 && first >= 97 && first <= 122) return first - 97; // a..z
  if (/^\d+$/.test(slot)) return Number(slot);
  const second = slot.charCodeAt(1);
  if (slot.length === 2 && first === 97 && second >= 97 && second <= 122) return 26 + second - 97; // aa..az
  return 1000;
}

/**
 * What a URL parser certainly reads as an http(s) URL: a lower-case scheme, a host name whose last
 * label starts with a letter (so it is no IPv4 address to check), no port, and path, query and
 * fragment of URL characters only. Most feed URLs look like this; the rest go to the parser.
 */
const PLAIN_HTTP_URL =
  /^https?:\/\/(?:[A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*(?:\/[\w.~!$&'()*+,;=:@%/-]*)?(?:\?[\w.~!$&'()*+,;=:@%/?-]*)?(?:#[\w.~!$&'()*+,;=:@%/?#-]*)?$/;

/** http(s) URLs only; percent-encoded URLs ("http%3A%2F%2F…") are decoded first. */
export function readUrl(raw: string): string | null {
  if (tooLongForUrl(raw)) return null;
  let value = raw.trim();
  if (PLAIN_HTTP_URL.test(value)) return value;
  if (/^https?%3A/i.test(value)) {
    try {
      value = decodeURIComponent(value);
    } catch {
      return null;
    }
  }
  // Serialised by the URL parser: a quote, bracket or space in it arrives percent-encoded.
  return httpUrl(value);
}

/**
 * One img/floorplan/document element: an object to store, null to delete the slot (id only),
 * or undefined when it is skipped (with a warning).
 */
function readSlot(ctx: MapContext, node: XmlNode, kind: MediaItem['kind'], slot: string): Slot | null | undefined {
  const url = attr(node, 'url');
  const file = attr(node, 'file');
  const modTime = attr(node, 'modTime');
  if (modTime) readDate(ctx, modTime, () => `${node.path}/@modTime`, `${node.name} modTime`);
  if (url === undefined && file === undefined && node.text.trim() === '') return null;
  if (url === undefined || url.trim() === '') {
    const title = attr(node, 'title');
    if (file?.trim()) {
      // A zip feed's file: kept in its place with the file name, so the listing keeps its photos
      // in order; nothing can be served from it until the file is published at a URL.
      ctx.issues.warning(
        'media_not_url',
        `${node.name} ${slot} names file "${file.trim()}" (a path inside the feed's archive) and no URL; kept by file name, with no URL to serve`,
        node.path,
      );
      return title ? { file: file.trim(), kind, slot, title } : { file: file.trim(), kind, slot };
    }
    ctx.issues.warning('media_not_url', `${node.name} ${slot} holds inline image data, not a URL; skipped`, node.path);
    return undefined;
  }
  const href = readUrl(url);
  if (!href) {
    ctx.issues.warning('invalid_media_url', `${node.name} ${slot} URL "${url}" is not an http(s) URL; skipped`, `${node.path}/@url`);
    return undefined;
  }
  const title = attr(node, 'title');
  return title ? { url: href, kind, slot, title } : { url: href, kind, slot };
}

export interface MediaDelta {
  photos?: SlotMap<Slot>;
  floorplans?: SlotMap<Slot>;
  documents?: SlotMap<Slot>;
}

/** img from <images> and <objects>, floorplans and documents from <objects>, attachments from <media> (or <objects>). */
export function mapMedia(ctx: MapContext, listing: XmlNode): MediaDelta {
  const out: MediaDelta = {};
  const put = (key: keyof MediaDelta, slot: string, value: Slot | null | undefined) => {
    if (value === undefined) return;
    (out[key] ??= {})[slot] = value;
  };
  /** A statement of information, or another document kept under its usage; agent photos are not the property's. */
  const readAttachment = (node: XmlNode) => {
    const usage = (attr(node, 'usage') ?? '').trim();
    if (usage.toLowerCase() === 'agentphoto') return;
    const soi = usage.toLowerCase() === 'statementofinformation';
    if (!soi)
      ctx.issues.warning(
        'unknown_attachment_usage',
        `attachment usage "${usage}" is not statementOfInformation or agentPhoto; kept as a document titled by its usage`,
        `${node.path}/@usage`,
      );
    const contentType = (attr(node, 'contentType') ?? '').trim().toLowerCase();
    if (soi && contentType !== 'application/pdf') {
      ctx.issues.warning(
        'invalid_attachment_content_type',
        `attachment contentType "${contentType}" is not application/pdf; skipped`,
        `${node.path}/@contentType`,
      );
      return;
    }
    const id = (attr(node, 'id') ?? String(Object.keys(out.documents ?? {}).length + 1)).trim();
    const slot = soi ? `soi-${id}` : `attachment-${id}`;
    const doc = readSlot(ctx, node, 'document', slot);
    const title = soi ? 'Statement of Information' : attr(node, 'title')?.trim() || usage || 'Attachment';
    put('documents', slot, doc ? { ...doc, title } : doc);
  };
  for (const holder of listing.children) {
    if (holder.name === 'img') {
      // An <img> straight under the listing (no <images> or <objects> around it): read as one.
      const slot = (attr(holder, 'id') ?? '').trim().toLowerCase();
      ctx.issues.warning('media_outside_objects', `img "${slot}" is directly under the listing, not inside <objects> or <images>; read`, holder.path);
      if (PHOTO_SLOT.test(slot)) put('photos', slot, readSlot(ctx, holder, 'photo', slot));
      else ctx.issues.warning('unknown_media_slot', `img id "${slot}" is not m, a..z or aa..az; skipped`, holder.path);
    } else if (holder.name === 'images' || holder.name === 'objects') {
      for (const node of holder.children) {
        const slot = (attr(node, 'id') ?? '').trim().toLowerCase();
        if (node.name === 'img') {
          if (!PHOTO_SLOT.test(slot)) {
            ctx.issues.warning('unknown_media_slot', `img id "${slot}" is not m, a..z or aa..az; skipped`, node.path);
            continue;
          }
          put('photos', slot, readSlot(ctx, node, 'photo', slot));
        } else if (node.name === 'floorplan' || node.name === 'document') {
          if (!/^\d{1,2}$/.test(slot)) {
            ctx.issues.warning('unknown_media_slot', `${node.name} id "${slot}" is not a number; skipped`, node.path);
            continue;
          }
          put(node.name === 'floorplan' ? 'floorplans' : 'documents', slot, readSlot(ctx, node, node.name, slot));
        } else if (node.name === 'attachment') readAttachment(node); // REAXML puts them in <media>; some exports in <objects>
      }
    } else if (holder.name === 'media') {
      for (const node of holder.children) if (node.name === 'attachment') readAttachment(node);
    }
  }
  return out;
}
