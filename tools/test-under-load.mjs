// npm run test:under-load [-- mocha options]: the suite while a background load keeps every core busy, as on a
// shared CI machine. One busy loop per core (child processes, lowest priority not asked for:
// they compete with the tests as other sessions' work does), then `npm test`, then the loops end.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const cores = Number(process.env.LOAD_CORES ?? availableParallelism());
const loops = Array.from({ length: cores }, () => spawn(process.execPath, ['-e', 'for (;;) Math.sqrt(Math.random());'], { stdio: 'ignore' }));
const stop = () => {
  for (const loop of loops) loop.kill('SIGKILL');
};
process.once('exit', stop);
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
console.log(`test:under-load: ${cores} busy loops running; npm test`);

const started = Date.now();
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const test = spawn(npm, ['test', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])], { stdio: 'inherit' });
test.once('exit', (code, signal) => {
  stop();
  console.log(`test:under-load: npm test ended (${signal ?? `exit ${code}`}) after ${((Date.now() - started) / 60_000).toFixed(1)} min under load`);
  process.exit(code ?? 1);
});
