import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from './embedded-lock.js';

/**
 * How a command reaches the service running on the embedded database (which takes one process at
 * a time): DATA_DIR/service.json names its process, port and a command token made at start and
 * valid only while it runs. The file is readable by the account that runs the service only.
 */
export interface LocalService {
  pid: number;
  port: number;
  token: string;
}

const pathOf = (dataDir: string) => join(dataDir, 'service.json');

export function writeLocalService(dataDir: string, service: LocalService): void {
  const path = pathOf(dataDir);
  writeFileSync(`${path}.tmp`, JSON.stringify(service), { mode: 0o600 });
  chmodSync(`${path}.tmp`, 0o600);
  renameSync(`${path}.tmp`, path);
}

/** The running service of this data folder, or null when none runs (a file left by a process that died is ignored). */
export function readLocalService(dataDir: string): LocalService | null {
  try {
    const service = JSON.parse(readFileSync(pathOf(dataDir), 'utf8')) as LocalService;
    return Number.isInteger(service.pid) && processAlive(service.pid) && service.pid !== process.pid ? service : null;
  } catch {
    return null;
  }
}

/** Removes the file if it is this process's. */
export function removeLocalService(dataDir: string): void {
  try {
    if ((JSON.parse(readFileSync(pathOf(dataDir), 'utf8')) as LocalService).pid === process.pid) rmSync(pathOf(dataDir), { force: true });
  } catch {
    // already gone
  }
}
