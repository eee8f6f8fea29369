import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { Preview } from '../pipeline/applied.js';
import type { PreviewSink } from '../pipeline/validate-feed.js';

/** Bytes gathered before they are written to the file. */
const FLUSH_AT = 256 * 1024;

/** A preview as the array holds it: after a comma, unless it is the first. */
const pieceAt = (position: number, preview: Preview) => `${position === 0 ? '' : ','}${preview.json()}`;

/**
 * A dry run's listing previews, spooled to a temporary file as they are produced, as the inside of
 * a JSON array (previews separated by commas), so memory does not grow with the feed. A later
 * duplicate that wins takes an earlier preview's place: it is kept in memory (duplicates are few)
 * and written in that place when the array is sent. close() removes the file.
 */
export class PreviewSpool implements PreviewSink {
  private readonly dir = mkdtempSync(join(tmpdir(), 'dry-run-'));
  private readonly path = join(this.dir, 'previews.json');
  private readonly fd = openSync(this.path, 'w');
  /** Previews encoded but not yet written to the file: the first `pendingBytes` of `buffer`. */
  private readonly buffer = Buffer.allocUnsafe(FLUSH_AT);
  private pendingBytes = 0;
  private written = 0;
  /** Byte offset of each preview in the file (its separator included). */
  private readonly starts: number[] = [];
  private readonly replaced = new Map<number, Preview>();
  private closed = false;

  add(preview: Preview): number {
    const position = this.starts.length;
    this.starts.push(this.written + this.pendingBytes);
    const piece = pieceAt(position, preview);
    // UTF-8 takes at most 3 bytes per UTF-16 code unit: a piece that may not fit is written after what is pending.
    if (this.pendingBytes + piece.length * 3 > FLUSH_AT) this.flush();
    if (piece.length * 3 > FLUSH_AT) this.writeBytes(Buffer.from(piece, 'utf8'));
    else this.pendingBytes += this.buffer.write(piece, this.pendingBytes, 'utf8');
    return position;
  }

  replace(position: number, preview: Preview): void {
    this.replaced.set(position, preview);
  }

  private flush(): void {
    if (this.pendingBytes === 0) return;
    this.writeBytes(this.buffer.subarray(0, this.pendingBytes));
    this.pendingBytes = 0;
  }

  private writeBytes(bytes: Buffer): void {
    for (let done = 0; done < bytes.length; ) done += writeSync(this.fd, bytes, done);
    this.written += bytes.length;
  }

  /**
   * Writes the previews as a JSON array to out (not ended), with replacements in their places.
   * The file is copied through two buffers used in turn, each refilled once out's write callback
   * says it is done with it (as a socket is), so out must not keep a chunk past that callback.
   * Fresh buffers per chunk would be garbage V8 collects only after some 64 MB of them.
   */
  async writeArray(out: Writable): Promise<void> {
    this.flush();
    const file = await open(this.path, 'r');
    try {
      const copier = new Copier(file, out);
      out.write('[');
      let from = 0;
      for (const position of [...this.replaced.keys()].sort((a, b) => a - b)) {
        const start = this.starts[position];
        const end = position + 1 < this.starts.length ? this.starts[position + 1] : this.written;
        await copier.copy(from, start);
        out.write(pieceAt(position, this.replaced.get(position)!));
        from = end;
      }
      await copier.copy(from, this.written);
      out.write(']');
    } finally {
      await file.close();
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Copies byte ranges of a file to a writable through two buffers used in turn. */
class Copier {
  private readonly buffers = [Buffer.allocUnsafe(FLUSH_AT), Buffer.allocUnsafe(FLUSH_AT)];
  /** Each buffer's write still under way. */
  private readonly inFlight: Promise<void>[] = [Promise.resolve(), Promise.resolve()];
  private turn = 0;

  constructor(
    private readonly file: FileHandle,
    private readonly out: Writable,
  ) {}

  /** Bytes start to end (exclusive) of the file, written to out; resolves once out is done with them. */
  async copy(start: number, end: number): Promise<void> {
    for (let at = start; at < end; this.turn ^= 1) {
      const buffer = this.buffers[this.turn];
      await this.inFlight[this.turn];
      const { bytesRead } = await this.file.read(buffer, 0, Math.min(buffer.length, end - at), at);
      if (bytesRead === 0) throw new Error(`the preview file ended at byte ${at} of ${end}`);
      at += bytesRead;
      const writing = writeChunk(this.out, buffer.subarray(0, bytesRead));
      writing.catch(() => {}); // awaited when the buffer comes round again or at the end, not left unhandled meanwhile
      this.inFlight[this.turn] = writing;
    }
    await Promise.all(this.inFlight);
  }
}

/** Writes chunk to out; resolves when out's write callback says it is done with it, rejects if out fails or closes first. */
function writeChunk(out: Writable, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const closed = () => reject(new Error('the answer was closed before the previews were written'));
    out.once('close', closed);
    out.write(chunk, (err) => {
      out.off('close', closed);
      if (err) reject(err);
      else resolve();
    });
  });
}
