import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';
import { repoRoot } from '../helpers.js';

/**
 * The layers of docs/architecture.md: each folder may import those below it, never one above, and
 * no module imports itself round a cycle (type-only imports included: they tie the files as much).
 */
const RANK: Record<string, number> = { lib: 0, pipeline: 1, db: 2, workers: 3, 'sftp-watcher': 3, api: 4, '.': 5 };
const SKIP = new Set(['node_modules', 'dist', 'test', 'bench', 'tools', 'data', 'test-artifacts']);

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (path.endsWith('.ts') && !path.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const layerOf = (path: string) => {
  const top = relative(repoRoot, path).split('/')[0];
  return top in RANK ? top : '.';
};

describe('Code layout: layers point one way, no import cycles', () => {
  const files = sources(repoRoot);
  const imports = new Map(
    files.map((file) => [
      file,
      [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^;]*? from '(\.[^']+)'/gm)].map((m) => resolve(dirname(file), m[1].replace(/\.js$/, '.ts'))),
    ]),
  );

  it('imports nothing from a layer above (lib < pipeline < db < workers, sftp-watcher < api < the entry points)', () => {
    expect(files.length).to.be.greaterThan(100);
    const upward = [...imports].flatMap(([file, deps]) =>
      deps.filter((dep) => RANK[layerOf(dep)] > RANK[layerOf(file)]).map((dep) => `${relative(repoRoot, file)} -> ${relative(repoRoot, dep)}`),
    );
    expect(upward).to.deep.equal([]);
  });

  it('has no import cycles', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(repoRoot, f)).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const dep of imports.get(file) ?? []) if (imports.has(dep)) visit(dep, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).to.deep.equal([]);
  });
});
