import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import SftpClient from 'ssh2-sftp-client';
import type { ListedFile } from './stability.js';

export interface SftpSettings {
  host: string;
  port: number;
  username: string;
  password?: string;
  privateKey?: Buffer;
  /** `SHA256:...` as `ssh-keygen -lf` prints it; null accepts any host key (development only). */
  hostFingerprint: string | null;
  /** Absolute path on the server holding one folder per office. */
  root: string;
  /** Limit on connecting and on every single operation. */
  timeoutMs: number;
}

/** SFTP_URL (`sftp://user[:password]@host:port/root`) and the key and fingerprint variables as settings. */
export function sftpSettings(
  config: { sftpUrl: string; sftpPrivateKeyPath: string | null; sftpHostFingerprint: string | null },
  timeoutMs = 20_000,
): SftpSettings {
  const url = new URL(config.sftpUrl);
  const root = decodeURIComponent(url.pathname).replace(/\/+$/, '') || '/';
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 22,
    username: decodeURIComponent(url.username),
    password: url.password ? decodeURIComponent(url.password) : undefined,
    privateKey: config.sftpPrivateKeyPath ? readFileSync(config.sftpPrivateKeyPath) : undefined,
    hostFingerprint: config.sftpHostFingerprint,
    root,
    timeoutMs,
  };
}

/** The fingerprint of a host key as OpenSSH prints it. */
export function fingerprintOf(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

export class SftpTimeoutError extends Error {}

/** The ssh2 SFTP channel under ssh2-sftp-client (what its connect() resolves to). */
type SftpChannel = Awaited<ReturnType<SftpClient['connect']>>;

/** One entry of a READDIR reply. */
type DirEntry = Parameters<Parameters<SftpChannel['readdir']>[1]>[1][number];

/** SSH_FX_EOF: a READDIR past the folder's last entry. */
const SSH_FX_EOF = 1;

/** A folder's entries as list() reads them: files (with size and mtime) and folder names. */
export interface Listing {
  files: ListedFile[];
  folders: string[];
  /** The folder had more entries than the limit asked for: only the first ones (in the server's order) are here. */
  truncated: boolean;
  /**
   * Entries left out because their names are not UTF-8: read as UTF-8 they come out changed
   * (U+FFFD in place of the bytes), and no request can name them. They count towards the limit.
   */
  unnamed: number;
}

/**
 * One SFTP connection for one poll (ssh2-sftp-client advises against reusing clients). Every
 * operation has its own time limit; when one passes, the connection is torn down so nothing is
 * left hanging, and the error says which operation it was.
 */
export class SftpSession {
  private channel: SftpChannel | null = null;

  private constructor(
    private readonly client: SftpClient,
    private readonly timeoutMs: number,
  ) {}

  static async open(settings: SftpSettings): Promise<SftpSession> {
    // Connection events outside an operation are not reported separately: the next operation fails
    // (or times out) and says so. Without these callbacks the library writes them to the console.
    const quiet = () => undefined;
    const client = new SftpClient('sftp-watcher', { error: quiet, end: quiet, close: quiet } as never);
    const session = new SftpSession(client, settings.timeoutMs);
    const expected = settings.hostFingerprint;
    session.channel = await session.limit(`connect to ${settings.host}:${settings.port}`, () =>
      client.connect({
        host: settings.host,
        port: settings.port,
        username: settings.username,
        password: settings.password,
        privateKey: settings.privateKey,
        readyTimeout: settings.timeoutMs,
        keepaliveInterval: 5_000,
        ...(expected ? { hostVerifier: (key: Buffer) => fingerprintOf(key) === expected } : {}),
      }),
    );
    // Every operation is one request and its answer, one after another. With Nagle's algorithm on,
    // each request waited for the previous segment's delayed ACK: about 44 ms per request even on
    // loopback (a claim's rename, read, move: 0.2 s; a 2,000-entry listing: 0.9 s). Sent at once: 1 ms.
    session.ssh()?.setNoDelay(true);
    return session;
  }

  private async limit<T>(what: string, op: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.destroy();
        reject(new SftpTimeoutError(`SFTP ${what} did not finish within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([op(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Entries of a folder: files (with size and mtime) and folder names, at most `limit` of them (in
   * the server's order). The folder is read one READDIR reply (about 100 entries with OpenSSH) at a
   * time, each within the time limit, and only name, size and mtime are kept: a folder of 100,000
   * files neither runs into one operation's limit (reading it whole took 52 s on loopback with
   * ssh2-sftp-client's list(), 5 to 8 s even with TCP_NODELAY) nor
   * holds every entry's long form in memory, and with a limit it costs no more than `limit` entries.
   */
  async list(path: string, limit = Number.POSITIVE_INFINITY): Promise<Listing> {
    const channel = this.channel!;
    // Errors name the folder (a timeout already does); a timeout has torn the connection down.
    const described = (err: unknown) => (err instanceof SftpTimeoutError ? err : new Error(`list ${path}: ${(err as Error).message}`));
    const handle = await this.limit(`open ${path}`, () => callback<Buffer>((done) => channel.opendir(path, done))).catch((err) =>
      Promise.reject(described(err)),
    );
    const listing: Listing = { files: [], folders: [], truncated: false, unnamed: 0 };
    let timedOut = false;
    try {
      let seen = 0;
      for (;;) {
        const batch = await this.limit(`list ${path}`, () =>
          callback<DirEntry[] | null>((done) =>
            channel.readdir(handle, (err, entries) => (err && (err as { code?: unknown }).code === SSH_FX_EOF ? done(undefined, null) : done(err, entries))),
          ),
        );
        if (!batch) return listing;
        for (const entry of batch) {
          if (entry.filename === '.' || entry.filename === '..') continue;
          if (seen === limit) {
            listing.truncated = true;
            return listing;
          }
          seen += 1;
          // The type as `ls -l` writes it, as ssh2-sftp-client's list() reads it.
          const type = entry.longname.slice(0, 1);
          if (entry.filename.includes('\uFFFD')) listing.unnamed += 1;
          else if (type === '-') listing.files.push({ name: entry.filename, size: entry.attrs.size, modifyTime: entry.attrs.mtime * 1000 });
          else if (type === 'd') listing.folders.push(entry.filename);
        }
      }
    } catch (err) {
      timedOut = err instanceof SftpTimeoutError;
      throw described(err);
    } finally {
      if (!timedOut) await this.limit(`close ${path}`, () => callback<void>((done) => channel.close(handle, done))).catch(() => undefined);
    }
  }

  async exists(path: string): Promise<boolean> {
    return (await this.limit(`stat ${path}`, () => this.client.exists(path))) !== false;
  }

  async isFolder(path: string): Promise<boolean> {
    return (await this.limit(`stat ${path}`, () => this.client.exists(path))) === 'd';
  }

  /** Whether the connection still serves requests (a stat of path answers, whatever it says). */
  async answers(path: string): Promise<boolean> {
    return this.exists(path).then(
      () => true,
      () => false,
    );
  }

  async mkdir(path: string): Promise<void> {
    await this.limit(`mkdir ${path}`, () => this.client.mkdir(path, true));
  }

  /** Plain SFTP rename: fails when the source is gone or the target exists, which makes it a claim. */
  async rename(from: string, to: string): Promise<void> {
    await this.limit(`rename ${from}`, () => this.client.rename(from, to));
  }

  async read(path: string): Promise<Buffer> {
    return (await this.limit(`read ${path}`, () => this.client.get(path))) as Buffer;
  }

  async write(path: string, content: string): Promise<void> {
    await this.limit(`write ${path}`, () => this.client.put(Buffer.from(content, 'utf8'), path));
  }

  async close(): Promise<void> {
    await this.limit('close', () => this.client.end()).catch(() => this.destroy());
  }

  /** The SSH connection under the SFTP client. */
  private ssh(): { destroy(): void; setNoDelay(on: boolean): void } | undefined {
    return (this.client as unknown as { client?: { destroy(): void; setNoDelay(on: boolean): void } }).client;
  }

  private destroy(): void {
    this.ssh()?.destroy();
  }
}

/** A node-style call as a promise. */
function callback<T>(call: (done: (err: Error | null | undefined, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => call((err, value) => (err ? reject(err) : resolve(value as T))));
}
