import { pipeline, Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Request } from 'express';
import { badRequest, HttpError, payloadTooLarge, unsupportedMediaType } from '../lib/errors.js';

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

const tooLarge = (maxBytes: number) => payloadTooLarge(`request body is larger than the limit of ${maxBytes} bytes`);

/** Counts a byte stream as it passes, refusing it (413) once it passes maxBytes. */
async function* limited(bytes: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of bytes) {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge(maxBytes);
    yield chunk;
  }
}

/** Decompressed bytes; a body that is not what its Content-Encoding says is a 400. */
async function* decompressed(bytes: AsyncIterable<Buffer>, encoding: string): AsyncGenerator<Buffer> {
  // pipeline, not pipe: an error on either side (a 413 while reading, corrupt data) ends both.
  const inflate = pipeline(Readable.from(bytes), DECODERS[encoding](), () => undefined);
  try {
    for await (const chunk of inflate) yield chunk as Buffer;
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw badRequest(`the request body could not be decompressed as its Content-Encoding (${encoding}) says: ${(err as Error).message}`);
  } finally {
    inflate.destroy();
  }
}

/**
 * A request's body as a stream of bytes, read once: decompressed when Content-Encoding is gzip,
 * deflate or br, and refused with 413 once either the bytes sent or the bytes they decompress to
 * pass maxBytes (a small compressed body cannot unpack into an unbounded one). Another encoding
 * is a 415 before anything is read.
 */
export function requestBytes(req: Request, maxBytes: number): AsyncIterable<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const encoding = String(req.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  const sent = limited(req as AsyncIterable<Buffer>, maxBytes);
  if (encoding === 'identity' || encoding === '') return sent;
  if (!DECODERS[encoding]) throw unsupportedMediaType(`Content-Encoding ${encoding} is not supported; send gzip, deflate, br or no encoding`);
  return limited(decompressed(sent, encoding), maxBytes);
}
