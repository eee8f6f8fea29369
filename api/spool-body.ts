import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface SpooledBody {
  /** The body again: from memory, or from the file in 1 MB pieces. */
  read(): AsyncIterable<Buffer>;
  remove(): Promise<void>;
}

/** Folders of bodies being received or held right now. */
const live = new Set<string>();

/**
 * Removes every body folder still here: for the end of the process, when a request cut off by the
 * shutdown may not have finished removing its own.
 */
export function removeLeftSpools(): void {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
  live.clear();
}

/**
 * A body up to this size is held in memory: the upload slots bound how many are held at once
 * (FEED_UPLOADS_TOTAL, so 32 × 256 KB by default), and a small push, most of the traffic, skips
 * creating, writing, reading and removing a file (about 2 ms of its answer on a busy machine).
 */
const IN_MEMORY_BYTES = 256 * 1024;

/**
 * Receives a request body before anything is done with it: however slowly a client sends, no
 * database connection or transaction waits on it. Up to IN_MEMORY_BYTES it is held in memory;
 * past that it goes to a temporary file, so memory stays flat whatever the body's size. The caller
 * removes it (remove()); a failed receive removes it.
 */
export async function spoolBody(body: AsyncIterable<Buffer>): Promise<SpooledBody> {
  const source = body[Symbol.asyncIterator]();
  const held: Buffer[] = [];
  let bytes = 0;
  while (bytes <= IN_MEMORY_BYTES) {
    const next = await source.next();
    if (next.done) {
      return {
        read: async function* () {
          yield* held;
        },
        remove: async () => undefined,
      };
    }
    held.push(next.value);
    bytes += next.value.length;
  }
  return spoolToFile(
    (async function* () {
      yield* held.splice(0);
      try {
        for (let next = await source.next(); !next.done; next = await source.next()) yield next.value;
      } finally {
        await source.return?.();
      }
    })(),
  );
}

async function spoolToFile(body: AsyncIterable<Buffer>): Promise<SpooledBody> {
  const dir = await mkdtemp(join(tmpdir(), 'feed-body-'));
  live.add(dir);
  const path = join(dir, 'body');
  const remove = async () => {
    await rm(dir, { recursive: true, force: true });
    live.delete(dir);
  };
  try {
    await pipeline(Readable.from(body), createWriteStream(path));
    return { read: () => createReadStream(path, { highWaterMark: 1 << 20 }), remove };
  } catch (err) {
    await remove();
    throw err;
  }
}
