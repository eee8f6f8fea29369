import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface SpooledBody {
  /** The body again, from the file, in 1 MB pieces. */
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
 * Receives a request body into a temporary file before anything is done with it: however slowly
 * a client sends, no database connection or transaction waits on it, and memory stays flat
 * whatever the body's size. The caller removes the file (remove()); a failed receive removes it.
 */
export async function spoolBody(body: AsyncIterable<Buffer>): Promise<SpooledBody> {
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
