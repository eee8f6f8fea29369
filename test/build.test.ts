import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { repoRoot } from './helpers.js';

/** Runs a script with node to its end: exit code, and stdout and stderr apart. */
function runScript(script: string, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [script, ...args], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((r) => child.once('close', (code) => r({ code, stdout, stderr })));
}

describe('the Node.js version check every npm script runs first (tools/check-node.cjs)', () => {
  const { nodeVersionProblem, neededMajor } = createRequire(import.meta.url)(resolve(repoRoot, 'tools/check-node.cjs'));

  it('names the version needed and how to get it under an older Node.js, and says nothing under 24 or newer', async () => {
    expect(neededMajor()).to.equal(24);
    const sentence = nodeVersionProblem('v20.19.2', 24);
    expect(sentence).to.include('needs Node.js 24 or newer').and.include('this is Node.js 20.19.2');
    expect(sentence).to.include('https://nodejs.org/').and.include('nvm install');
    expect(nodeVersionProblem('v18.0.0', 24)).to.include('this is Node.js 18.0.0');
    expect(nodeVersionProblem('v24.0.0', 24)).to.equal(null);
    expect(nodeVersionProblem('v25.1.0', 24)).to.equal(null);
    // Under the Node.js running the tests (24), the script itself lets the command go on, silently.
    const run = await runScript(resolve(repoRoot, 'tools/check-node.cjs'));
    expect([run.code, run.stdout, run.stderr]).to.deep.equal([0, '', '']);
  });
});

describe('the build (tools/build.mjs, npm run build and the first step of npm start)', () => {
  it('compiles when a source or tsconfig.json changed or the last compile failed, and not when nothing changed', async function () {
    this.timeout(60_000);
    // A small project of its own beside the real build script, so the repository's dist/ is left alone.
    const project = mkdtempSync(join(tmpdir(), 'build-test-'));
    try {
      mkdirSync(join(project, 'tools'));
      cpSync(resolve(repoRoot, 'tools/build.mjs'), join(project, 'tools/build.mjs'));
      symlinkSync(resolve(repoRoot, 'node_modules'), join(project, 'node_modules'));
      const tsconfig = {
        compilerOptions: {
          target: 'ES2023',
          module: 'nodenext',
          outDir: 'dist',
          rootDir: '.',
          incremental: true,
          tsBuildInfoFile: 'dist/.tsbuildinfo',
          types: ['node'],
        },
        include: ['*.ts', 'lib/**/*.ts', 'pipeline/**/*.ts'],
      };
      writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
      writeFileSync(join(project, 'package.json'), '{"type":"module"}');
      writeFileSync(join(project, 'main.ts'), "import { a } from './lib/a.js';\nconsole.log(a);\n");
      mkdirSync(join(project, 'lib'));
      writeFileSync(join(project, 'lib/a.ts'), 'export const a = 1;\n');
      // The gazetteer step, in this project: says that it ran.
      mkdirSync(join(project, 'pipeline/commands'), { recursive: true });
      writeFileSync(join(project, 'pipeline/commands/build-gazetteers.ts'), "process.stderr.write('gazetteers checked\\n');\n");
      const build = () => runScript(join(project, 'tools/build.mjs'));
      // Sources dated a minute back, as a checkout would have them before the build.
      const past = (path: string) => utimesSync(join(project, path), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      for (const path of ['tsconfig.json', 'main.ts', 'lib', 'lib/a.ts', 'pipeline', 'pipeline/commands', 'pipeline/commands/build-gazetteers.ts']) past(path);

      const first = await build();
      expect(first.code, first.stderr).to.equal(0);
      expect(first.stderr).to.match(/compiled TypeScript in/);
      expect(first.stderr).to.include('gazetteers checked');
      expect(first.stdout, 'what the build says goes to stderr').to.equal('');
      const compiled = statSync(join(project, 'dist/main.js')).mtimeMs;

      const again = await build();
      expect(again.code).to.equal(0);
      expect(again.stderr, 'nothing changed: no compile, the gazetteer step still checks').to.equal('gazetteers checked\n');
      expect(statSync(join(project, 'dist/main.js')).mtimeMs).to.equal(compiled);

      writeFileSync(join(project, 'lib/a.ts'), 'export const a = 2;\n');
      const edited = await build();
      expect(edited.stderr)
        .to.include('lib/a.ts changed since the last build')
        .and.match(/compiled TypeScript/);

      utimesSync(join(project, 'tsconfig.json'), new Date(), new Date());
      expect((await build()).stderr).to.include('tsconfig.json changed since the last build');

      writeFileSync(join(project, 'lib/a.ts'), 'export const a: number = "not a number";\n');
      const broken = await build();
      expect(broken.code, 'a type error fails the build').not.to.equal(0);
      expect(broken.stderr).to.include('TS2322');
      expect((await build()).code, 'and the next build compiles again rather than trusting the stamp').not.to.equal(0);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
