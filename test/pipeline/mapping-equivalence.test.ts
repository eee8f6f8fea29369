import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { corpusDigest, GOLDENS_PATH, mappingCorpus, VARIED_LISTINGS } from './mapping-corpus.js';

/**
 * The mapping gives, byte for byte, the canonical records, content hashes, source fingerprints
 * and issues it gave when the goldens were written: on every fixture, on 5,000 varied synthetic
 * listings and on RESO and project documents, through both the dry run's and ingestion's reads.
 * A performance change must keep every digest; a change meant to alter what feeds map to bumps
 * the mapping version and rewrites the goldens (write-mapping-goldens.ts).
 */
describe('mapping equivalence (goldens)', () => {
  const goldens = JSON.parse(readFileSync(GOLDENS_PATH, 'utf8')) as Record<string, string>;
  const corpus = mappingCorpus();

  it('covers every fixture, the varied listings and the JSON formats', () => {
    expect(corpus.filter((e) => e.name.startsWith('fixture ')).length).to.be.greaterThan(80);
    expect(corpus.filter((e) => e.name.startsWith('varied ')).length * 250).to.equal(VARIED_LISTINGS);
    expect(Object.keys(goldens).sort()).to.deep.equal(corpus.map((e) => e.name).sort());
  });

  it('maps every entry to exactly what the goldens record', async function () {
    this.timeout(120000);
    const differing: string[] = [];
    for (const entry of corpus) {
      const { digest, lines } = await corpusDigest(entry);
      expect(lines.length, entry.name).to.be.greaterThan(1);
      if (digest !== goldens[entry.name]) differing.push(entry.name);
    }
    expect(differing).to.deep.equal([]);
  });
});
