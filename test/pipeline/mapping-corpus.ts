/**
 * The corpus the mapping equivalence test runs: every REAXML fixture, 5,000 varied synthetic
 * listings (in chunks of 250) and RESO and project documents. Each entry's output lines are
 * hashed; test/pipeline/mapping-goldens.json keeps the digests the mapping gave when they were
 * last written (node dist/test/pipeline/write-mapping-goldens.js, only for an intended change).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { FeedFormat } from '../../pipeline/types.js';
import { projectDoc, resoRecord } from '../formats/documents.js';
import { AU_CONTEXT, fixtureDir, repoRoot } from '../helpers.js';
import { mappingOutputs } from './mapping-outputs.js';
import { variedFeed } from './varied-listings.js';

export const GOLDENS_PATH = join(repoRoot, 'test/pipeline/mapping-goldens.json');
export const VARIED_LISTINGS = 5000;
const CHUNK = 250;

export interface CorpusEntry {
  name: string;
  format: FeedFormat;
  text: () => string;
}

function fixtureFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return fixtureFiles(path);
    return name.endsWith('.xml') ? [path] : [];
  });
}

export function mappingCorpus(): CorpusEntry[] {
  const entries: CorpusEntry[] = fixtureFiles(fixtureDir)
    .sort()
    .map((path) => ({ name: `fixture ${relative(fixtureDir, path)}`, format: 'reaxml' as const, text: () => readFileSync(path, 'latin1') }));
  const everyField = join(repoRoot, 'test/fixtures/reaxml/fidelity/every-field.xml');
  entries.push({ name: 'fixture fidelity/every-field.xml', format: 'reaxml', text: () => readFileSync(everyField, 'utf8') });
  for (let from = 0; from < VARIED_LISTINGS; from += CHUNK) {
    entries.push({ name: `varied ${from}-${from + CHUNK - 1}`, format: 'reaxml', text: () => variedFeed(from, from + CHUNK) });
  }
  const media = {
    Media: [
      { MediaURL: 'https://img.example.com/1.jpg', Order: 2 },
      { MediaURL: 'https://img.example.com/0.jpg', Order: 1, MediaCategory: 'Photo' },
    ],
  };
  entries.push({
    name: 'reso collection',
    format: 'reso',
    text: () =>
      JSON.stringify({
        value: [
          resoRecord(),
          resoRecord({ ListingKey: 'a2', ...media }),
          resoRecord({ ListingKey: 'a3', ListPrice: null, StandardStatus: 'Closed', ClosePrice: 900000 }),
          resoRecord({ ListingKey: 'a4', YearBuilt: 1998, PetsAllowed: ['Yes'], View: 'Ocean', CountyOrParish: 'Parramatta', SubdivisionName: 'Harbour' }),
        ],
      }),
  });
  entries.push({ name: 'project document', format: 'project', text: () => JSON.stringify(projectDoc()) });
  return entries;
}

/** sha256 of an entry's output lines, and the lines (for a look when a digest differs). */
export async function corpusDigest(entry: CorpusEntry): Promise<{ digest: string; lines: string[] }> {
  const lines = await mappingOutputs(entry.format, entry.text(), AU_CONTEXT);
  return { digest: createHash('sha256').update(lines.join('\n')).digest('hex'), lines };
}
