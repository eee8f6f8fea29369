/**
 * Run by `npm run build`: makes the gazetteers' indexes from their data packages into
 * dist/gazetteers/, so that the service reads small files instead of parsing the packages' large
 * ones as it runs (pipeline/gazetteers.ts). Each file records the package version and index format it was made from.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { builtIndexPath, type GazetteerName, indexSource, makeIndex } from '../gazetteers.js';

for (const name of ['au', 'world'] as GazetteerName[]) {
  const path = builtIndexPath(name);
  mkdirSync(dirname(path), { recursive: true });
  // Written whole, then moved into place: a service starting meanwhile never reads half a file.
  writeFileSync(`${path}.tmp`, JSON.stringify({ source: indexSource(name), index: makeIndex(name) }));
  renameSync(`${path}.tmp`, path);
}
