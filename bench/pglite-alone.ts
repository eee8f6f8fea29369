/**
 * PGlite alone in a bare node process, opened as the embedded service opens it (the same
 * extension and shared_buffers) on a data folder, after one query and an idle spell: the floor
 * under the embedded process's memory. Prints its RSS in MB. Run by bench/embedded-memory.
 *
 *   node dist/bench/pglite-alone.js <pglite folder> <idle ms> [shared_buffers]
 */
import { openPglite } from '../db/open-pglite.js';
import { memoryOf } from './proc-memory.js';

const [dir, idleMs, sharedBuffers] = process.argv.slice(2);
const pglite = openPglite(dir, sharedBuffers);
await pglite.query('SELECT count(*) FROM pg_class');
await new Promise((r) => setTimeout(r, Number(idleMs)));
console.log(memoryOf('self').rss);
await pglite.close();
