// Writes the README's configuration table from lib/config.ts's settings (build first: node tools/build.mjs).
// node tools/config-table.mjs          rewrites README.md between its config-table markers
// node tools/config-table.mjs --check  exits 1 when README.md's table differs (the test checks the same)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { configTable, replaceConfigTable } = await import(resolve(root, 'dist/lib/config.js'));
const readmePath = resolve(root, 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const updated = replaceConfigTable(readme, configTable());
if (process.argv.includes('--check')) {
  if (updated !== readme) {
    process.stderr.write('README.md: the configuration table differs from lib/config.ts (run node tools/config-table.mjs)\n');
    process.exit(1);
  }
} else if (updated !== readme) {
  writeFileSync(readmePath, updated);
  process.stdout.write('README.md: configuration table written\n');
} else {
  process.stdout.write('README.md: configuration table already up to date\n');
}
