import type { Request, RequestHandler, Response } from 'express';

export interface UploadSlotOptions {
  /** Uploads one key (or client address) may have in flight at once; one more is a 429. */
  perKey: number;
  /** Uploads in flight at once in this process; one more is a 503. */
  total: number;
  /** Whose share a request counts against: its feed key (set by the authentication before this runs) or its client address. */
  keyOf(req: Request, res: Response): string;
  /** How answers name the uploads and their owner: "feeds" and "this key" unless said otherwise. */
  what?: string;
  whose?: string;
  retryAfterS?: number;
}

/** Frees the request's upload slot; safe to call more than once. Set on res.locals by uploadSlots. */
export const releaseUploadSlot = (res: Response) => (res.locals.releaseUploadSlot as (() => void) | undefined)?.();

/**
 * Bounds concurrent uploads, per key and in all, before a body is read: a key past its share is
 * answered 429 and anyone past the total 503, both with Retry-After, so no key can tie up every
 * upload. A slot is held while the body is received and stored, and freed when the handler says
 * so (releaseUploadSlot: the feed is stored, waiting for its outcome holds nothing) or when the
 * response ends or the connection closes.
 */
export function uploadSlots(options: UploadSlotOptions): RequestHandler {
  const perKey = new Map<string, number>();
  let total = 0;
  const retryAfter = String(options.retryAfterS ?? 5);
  const what = options.what ?? 'feeds';
  const whose = options.whose ?? 'this key';
  return (req, res, next) => {
    const key = options.keyOf(req, res);
    const mine = perKey.get(key) ?? 0;
    if (mine >= options.perKey) {
      res
        .status(429)
        .set('retry-after', retryAfter)
        .json({ error: `${whose} already has ${options.perKey} ${what} uploading, its limit; send this one when one of them has been answered` });
      return;
    }
    if (total >= options.total) {
      res
        .status(503)
        .set('retry-after', retryAfter)
        .json({ error: `${options.total} ${what} are already uploading, the limit of this service; try again in a few seconds` });
      return;
    }
    perKey.set(key, mine + 1);
    total += 1;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      total -= 1;
      const left = (perKey.get(key) ?? 1) - 1;
      if (left > 0) perKey.set(key, left);
      else perKey.delete(key);
    };
    res.locals.releaseUploadSlot = release;
    res.once('close', release);
    next();
  };
}
