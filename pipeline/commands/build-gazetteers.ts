/**
 * Run by `npm run build`: makes the gazetteers' indexes from their data packages into
 * dist/gazetteers/, so that the service reads small files instead of parsing the packages' large
 * ones as it runs (pipeline/gazetteers.ts). Each file records the package version and index format it was made from.
 * An index already made from the installed package and format, and newer than the compiled code
 * that makes it, is left as it is (making both takes seconds; a start with nothing changed should not wait for it).
 */
import { closeSync, mkdirSync, openSync, readSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtIndexPath, type GazetteerName, indexSource, makeIndex } from '../gazetteers.js';

const maker = fileURLToPath(new URL('../gazetteers.js', import.meta.url));

/** Whether the index at `path` was made from `source` after the code that makes it was last compiled. */
function upToDate(path: string, source: string): boolean {
  const made = statSync(path, { throwIfNoEntry: false });
  if (!made || made.mtimeMs < statSync(maker).mtimeMs) return false;
  // The file begins {"source":"…", written first: its head tells, without parsing megabytes.
  const head = Buffer.alloc(512);
  const fd = openSync(path, 'r');
  try {
    const length = readSync(fd, head, 0, head.length, 0);
    return head
      .subarray(0, length)
      .toString('utf8')
      .startsWith(`{"source":${JSON.stringify(source)},`);
  } finally {
    closeSync(fd);
  }
}

for (const name of ['au', 'world'] as GazetteerName[]) {
  const path = builtIndexPath(name);
  const source = indexSource(name);
  if (process.argv.includes('--force') || !upToDate(path, source)) {
    mkdirSync(dirname(path), { recursive: true });
    // Written whole, then moved into place: a service starting meanwhile never reads half a file.
    writeFileSync(`${path}.tmp`, JSON.stringify({ source, index: makeIndex(name) }));
    renameSync(`${path}.tmp`, path);
  }
}
