import { createReadStream, createWriteStream } from 'node:fs';
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

/**
 * Receives a request body into a temporary file before anything is done with it: however slowly
 * a client sends, no database connection or transaction waits on it, and memory stays flat
 * whatever the body's size. The caller removes the file (remove()); a failed receive removes it.
 */
export async function spoolBody(body: AsyncIterable<Buffer>): Promise<SpooledBody> {
  const dir = await mkdtemp(join(tmpdir(), 'feed-body-'));
  const path = join(dir, 'body');
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await pipeline(Readable.from(body), createWriteStream(path));
    return { read: () => createReadStream(path, { highWaterMark: 1 << 20 }), remove };
  } catch (err) {
    await remove();
    throw err;
  }
}
