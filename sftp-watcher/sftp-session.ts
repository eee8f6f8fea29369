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

/**
 * One SFTP connection for one poll (ssh2-sftp-client advises against reusing clients). Every
 * operation has its own time limit; when one passes, the connection is torn down so nothing is
 * left hanging, and the error says which operation it was.
 */
export class SftpSession {
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
    await session.limit(`connect to ${settings.host}:${settings.port}`, () =>
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

  /** Entries of a folder: files (with size and mtime) and folder names. */
  async list(path: string): Promise<{ files: ListedFile[]; folders: string[] }> {
    const entries = await this.limit(`list ${path}`, () => this.client.list(path));
    return {
      files: entries.filter((e) => e.type === '-').map((e) => ({ name: e.name, size: e.size, modifyTime: e.modifyTime })),
      folders: entries.filter((e) => e.type === 'd').map((e) => e.name),
    };
  }

  async exists(path: string): Promise<boolean> {
    return (await this.limit(`stat ${path}`, () => this.client.exists(path))) !== false;
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

  private destroy(): void {
    (this.client as unknown as { client?: { destroy(): void } }).client?.destroy();
  }
}
