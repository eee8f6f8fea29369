/**
 * Writes test/pipeline/mapping-goldens.json from the mapping as it is now. Run it only when a
 * change to what feeds map to is intended (and REAXML_MAPPING_VERSION is bumped with it):
 *   npm run build && node dist/test/pipeline/write-mapping-goldens.js [dump-dir]
 * With a dump directory, each entry's output lines are written there too, for diffing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { warmGazetteers } from '../../pipeline/geocode.js';
import { corpusDigest, GOLDENS_PATH, mappingCorpus } from './mapping-corpus.js';

warmGazetteers({ world: false });
const dump = process.argv[2];
if (dump) mkdirSync(dump, { recursive: true });
const goldens: Record<string, string> = {};
for (const entry of mappingCorpus()) {
  const { digest, lines } = await corpusDigest(entry);
  goldens[entry.name] = digest;
  if (dump) writeFileSync(join(dump, `${entry.name.replace(/[^\w.-]+/g, '_')}.txt`), `${lines.join('\n')}\n`);
}
writeFileSync(GOLDENS_PATH, `${JSON.stringify(goldens, null, 2)}\n`);
console.log(`${Object.keys(goldens).length} entries written to ${GOLDENS_PATH}`);
