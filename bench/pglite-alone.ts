/**
 * PGlite alone in a bare node process, opened as the embedded service opens it (the same
 * extension and shared_buffers) on a data folder, after one query and an idle spell: the floor
 * under the embedded process's memory. Prints its RSS in MB. Run by bench/embedded-memory.
 *
 *   node dist/bench/pglite-alone.js <pglite folder> <idle ms> [shared_buffers]
 */
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

const [dir, idleMs, sharedBuffers] = process.argv.slice(2);
const pglite = new PGlite(dir, { extensions: { pg_trgm }, ...(sharedBuffers ? { postgresqlconf: [`shared_buffers=${sharedBuffers}`] } : {}) });
await pglite.query('SELECT count(*) FROM pg_class');
await new Promise((r) => setTimeout(r, Number(idleMs)));
console.log(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024);
await pglite.close();
