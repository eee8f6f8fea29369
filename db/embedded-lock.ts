import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The embedded database is held by another live process: PGlite allows one at a time. */
export class EmbeddedDbInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the embedded database under ${dataDir} is in use by another process (pid ${pid}); it allows one process at a time. ` +
        'Stop that process first, or, while the service runs, use its admin API with the operator token (POST /v1/admin/keys creates a feed key).',
    );
    this.name = 'EmbeddedDbInUseError';
  }
}

/** Whether a process of this id exists (one of another user's counts). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Releases of the locks this process holds, run when it exits however it ends. */
const held = new Set<() => void>();
let exitHook = false;

/**
 * Takes DATA_DIR/pglite.pid for this process, or throws EmbeddedDbInUseError when a live other
 * process holds it. A file left by a process that died is taken over (tookOverFrom names that
 * process, for the log); the same process may open the database more than once. release() removes
 * the file if it is still this process's.
 */
export function lockEmbeddedDb(dataDir: string): { release(): void; tookOverFrom: number | null } {
  const path = join(dataDir, 'pglite.pid');
  const mine = String(process.pid);
  let tookOverFrom: number | null = null;
  for (let tries = 0; tries < 3; tries += 1) {
    try {
      writeFileSync(path, mine, { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(path, 'utf8').trim());
      if (holder === process.pid) break;
      if (Number.isInteger(holder) && holder > 0 && processAlive(holder)) throw new EmbeddedDbInUseError(dataDir, holder);
      rmSync(path, { force: true }); // left by a process that died
      tookOverFrom = Number.isInteger(holder) && holder > 0 ? holder : null;
    }
  }
  const release = () => {
    held.delete(release);
    try {
      if (readFileSync(path, 'utf8').trim() === mine) rmSync(path, { force: true });
    } catch {
      // already gone
    }
  };
  held.add(release);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const release of [...held]) release();
    });
  }
  return { release, tookOverFrom };
}
