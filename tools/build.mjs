// `npm run build`, and the first step of `npm start` and the operator commands: compiles the
// TypeScript and makes the gazetteer indexes, each only when what it is made from has changed, so
// that a start with nothing changed goes straight to the service.
//
// - TypeScript: compiled (tsc, incremental: dist/.tsbuildinfo) when any file tsconfig.json includes,
//   any folder below the top holding them (a file added, removed or renamed), tsconfig.json or package-lock.json
//   is newer than dist/.build-stamp, which a successful compile leaves dated from its start.
//   `npm run build -- --force` compiles and writes every file whatever the dates say (a file removed
//   from dist/ by hand is one tsc's incremental record does not notice), and makes both gazetteers again.
// - Gazetteers: dist/pipeline/commands/build-gazetteers.js makes each index that is missing, made
//   from another version of its package or index format, or older than the compiled code that makes it.
//
// What it does goes to stderr: a command's stdout (npm run key:create prints JSON) stays its own.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import jsonc from 'jsonc-parser';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');
const say = (line) => process.stderr.write(`build: ${line}\n`);

/** The newest modification time (ms) of the compiler's inputs, and the file or folder that has it. */
function newestInput(projectRoot = root) {
  const tsconfig = jsonc.parse(readFileSync(join(projectRoot, 'tsconfig.json'), 'utf8'));
  let newest = { ms: 0, path: '' };
  const see = (path, stats) => {
    if (stats.mtimeMs > newest.ms) newest = { ms: stats.mtimeMs, path };
  };
  for (const file of ['tsconfig.json', 'package-lock.json']) {
    const path = join(projectRoot, file);
    if (existsSync(path)) see(path, statSync(path));
  }
  // include patterns of the forms tsconfig.json uses: "*.ts" (files at the top) and "dir/**/*.ts".
  for (const pattern of tsconfig.include ?? ['**/*.ts']) {
    const wild = pattern.indexOf('*');
    if (wild < 0) {
      const path = join(projectRoot, pattern);
      if (existsSync(path)) see(path, statSync(path));
      continue;
    }
    const prefix = pattern.slice(0, wild);
    const recursive = pattern.includes('**');
    const ending = pattern.slice(pattern.lastIndexOf('*') + 1);
    const walk = (dir) => {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return; // a folder that is not there has nothing to compile
      }
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (recursive && entry.name !== 'node_modules') {
            see(path, statSync(path)); // its date changes when a file in it is added, removed or renamed
            walk(path);
          }
        } else if (entry.name.endsWith(ending)) see(path, statSync(path));
      }
    };
    // The top folder's own date is left out: it changes whenever anything is made there (data/, logs).
    const top = join(projectRoot, prefix);
    if (prefix && recursive && existsSync(top)) see(top, statSync(top));
    walk(top);
  }
  return newest;
}

function compile({ fresh = false } = {}) {
  const started = Date.now();
  // Without its record of the last compile, tsc compiles and writes every file again.
  if (fresh) rmSync(join(root, 'dist', '.tsbuildinfo'), { force: true });
  // The compiler as npm's own .bin/tsc runs it: the bin its package.json names (its exports do not list it).
  const manifest = createRequire(import.meta.url).resolve('typescript/package.json');
  const tsc = join(dirname(manifest), JSON.parse(readFileSync(manifest, 'utf8')).bin.tsc);
  // tsc writes its errors to stdout: sent to stderr with the rest.
  const run = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { cwd: root, stdio: ['ignore', 2, 2] });
  if (run.status !== 0) {
    say('TypeScript did not compile (errors above)');
    process.exit(run.status ?? 1);
  }
  writeFileSync(stamp, `compiled from sources as they were at ${new Date(started).toISOString()}\n`);
  // Dated from the compile's start: a file saved while tsc ran is newer, and the next build compiles it.
  utimesSync(stamp, started / 1000, started / 1000);
  say(`compiled TypeScript in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const force = process.argv.includes('--force');
  const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
  const newest = newestInput();
  if (force || !built) compile({ fresh: force });
  else if (newest.ms > built) {
    say(`${newest.path.slice(root.length)} changed since the last build; compiling`);
    compile();
  }
  await import(pathToFileURL(join(root, 'dist/pipeline/commands/build-gazetteers.js')).href);
}
