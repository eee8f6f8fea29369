/**
 * bench/reso: the RESO Web API over 1,000,000 synthetic listings in PostgreSQL (bench/synthetic-listings.ts).
 * Prints p50/p99 of a filtered page, an ordered page, $count, $expand=Media, the $filter functions
 * (contains, tolower, startswith, now() with year/month) and the Lookup of cities (requests one at a
 * time, each for up to BENCH_SECONDS; a query that fails is reported and skipped), then full replication: every public record followed by
 * nextLink in pages of 1,000 ordered by ModificationTimestamp, in records/s, beside the bare
 * baseline in the same run: node:http streaming the same SELECT (the same records' JSON, the
 * same rows, the same order) from one cursor. Target: replication >= 0.5 of the baseline.
 *
 *   npm run bench:reso                  # 1,000,000 listings (loading takes a few minutes)
 *   npm run bench:reso -- 200000        # a quicker run
 * Uses BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in a scratch schema.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../api/app.js';
import { allOffices, refreshDirectory } from '../db/directory.js';
import { createDb, type Db, migrateToLatest } from '../db/knex.js';
import { recordColumns } from '../db/reso-reads.js';
import { RESOURCES } from '../db/reso-resources.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { startRuntime } from '../workers/runtime.js';
import { LOAD_TIMEOUT_MS, loadSyntheticListings } from './synthetic-listings.js';

const LISTINGS = Number(process.argv[2] ?? 1_000_000);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

const QUERIES: [string, string][] = [
  ['filtered page', `Property?$filter=${encodeURIComponent("City eq 'Richmond 3' and ListPrice ge 300000")}&$top=100`],
  ['ordered page', 'Property?$orderby=ListPrice%20desc&$top=100'],
  ['$count', `Property?$count=true&$top=0&$filter=${encodeURIComponent("StandardStatus eq 'Active'")}`],
  ['$expand=Media', `Property?$expand=Media&$top=100&$filter=${encodeURIComponent("ListOfficeKey eq 'OFF7'")}`],
  // The $filter functions (docs/reso.md, Queries): City and PostalCode on their indexes, the time functions in the replication order.
  ['contains', `Property?$top=100&$filter=${encodeURIComponent("contains(City,'ondi 42')")}`],
  ['tolower', `Property?$top=100&$filter=${encodeURIComponent("contains(tolower(City),'bondi 4') and ListPrice ge 300000")}`],
  ['startswith', `Property?$top=100&$filter=${encodeURIComponent("startswith(PostalCode,'312')")}`],
  [
    'now() and year',
    `Property?$top=100&$orderby=ModificationTimestamp&$filter=${encodeURIComponent('ModificationTimestamp lt now() and year(ModificationTimestamp) ge 2024 and month(ModificationTimestamp) ge 1')}`,
  ],
  ['Lookup City', `Lookup?$top=1000&$filter=${encodeURIComponent("LookupName eq 'City'")}`],
];

/** The baseline: the same records' JSON in the same order, from one cursor, streamed by node:http. */
function bareServer(db: Db): Server {
  const property = RESOURCES.Property;
  // knex's escaped binding marks (\\?) are plain ? to pg.
  const select = `SELECT ${recordColumns(property.fields).join(', ')} FROM ${property.from} WHERE ${property.visible} ORDER BY updated_at, listing_key`.replace(
    /\\\?/g,
    '?',
  );
  return createServer(async (_req, res) => {
    const connection = await db.client.acquireConnection();
    try {
      res.writeHead(200, { 'content-type': 'application/json' });
      await connection.query('BEGIN');
      await connection.query(`DECLARE everything NO SCROLL CURSOR FOR ${select}`);
      let first = true;
      let count = 0;
      res.write('{"value":[');
      for (;;) {
        const { rows } = await connection.query('FETCH 1000 FROM everything');
        if (rows.length === 0) break;
        count += rows.length;
        const text = rows.map((r: { json0: string }) => r.json0).join(',');
        if (!res.write(first ? text : `,${text}`)) await new Promise((resolve) => res.once('drain', resolve));
        first = false;
      }
      await connection.query('COMMIT');
      res.end(`],"count":${count}}`);
    } catch (err) {
      await connection.query('ROLLBACK').catch(() => undefined);
      res.destroy(err as Error);
    } finally {
      await db.client.releaseConnection(connection);
    }
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

async function timed(url: string): Promise<{ ms: number; count: number }> {
  const started = performance.now();
  const res = await fetch(url, { headers: { prefer: 'odata.maxpagesize=1000' } });
  const body = (await res.json()) as { value?: unknown[]; error?: unknown };
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(body.error)}`);
  return { ms: performance.now() - started, count: body.value?.length ?? 0 };
}

async function main() {
  const schema = `bench_reso_${process.pid}`;
  const db = createDb({ databaseUrl: DATABASE_URL, dataDir: '', schema, statementTimeoutMs: LOAD_TIMEOUT_MS });
  const config = loadConfig({ DATABASE_URL, LOG_LEVEL: 'silent', RESO_RATE_LIMIT: '100000000' });
  const logger = createLogger('silent');
  const runtime = await startRuntime(config, logger, db, { consume: false });
  const servers: Server[] = [];
  try {
    await migrateToLatest(db);
    const started = Date.now();
    await loadSyntheticListings(db, LISTINGS);
    await refreshDirectory(db, await allOffices(db));
    await db.raw('ANALYZE');
    console.log(`loaded and indexed ${LISTINGS} listings in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const app = createApp({ config, logger, db, ingestQueue: runtime.ingestQueue, leadQueue: runtime.leadQueue });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    servers.push(server);
    const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/reso`;

    console.log(`queries, one at a time, each for up to ${SECONDS} s (at most 200 requests):`);
    for (const [name, path] of QUERIES) {
      const first = await timed(`${root}/${path}`).catch((err: Error) => err);
      if (first instanceof Error) {
        console.log(`  ${name.padEnd(14)} FAILED: ${first.message.slice(0, 300)}`);
        continue;
      }
      const times: number[] = [];
      let records = 0;
      const until = Date.now() + SECONDS * 1000;
      while (Date.now() < until && times.length < 200) {
        const r = await timed(`${root}/${path}`);
        times.push(r.ms);
        records = r.count;
      }
      times.sort((a, b) => a - b);
      console.log(
        `  ${name.padEnd(14)} p50 ${percentile(times, 50).toFixed(1).padStart(7)} ms  p99 ${percentile(times, 99).toFixed(1).padStart(7)} ms  (${times.length} requests, ${records} records a page)`,
      );
    }

    const bare = bareServer(db);
    servers.push(bare);
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
    const replicate = async () => {
      const t = performance.now();
      let next: string | undefined = `${root}/Property?$orderby=ModificationTimestamp`;
      let n = 0;
      while (next) {
        const res = await fetch(next, { headers: { prefer: 'odata.maxpagesize=1000' } });
        const page = (await res.json()) as { value: unknown[]; '@odata.nextLink'?: string };
        n += page.value.length;
        next = page['@odata.nextLink'];
      }
      return { n, s: (performance.now() - t) / 1000 };
    };
    // The whole set is one body longer than a string may be (about 0.6 GB at 1,000,000 listings):
    // it is read as a stream, and the server's closing count says how many records it held. Not
    // parsing it makes the baseline faster than a client could be, so the ratio errs low.
    const baseline = async () => {
      const t = performance.now();
      const res = await fetch(bareUrl);
      const decoder = new TextDecoder();
      let tail = '';
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) tail = (tail + decoder.decode(chunk, { stream: true })).slice(-200);
      const count = /"count":(\d+)\}$/.exec(tail);
      if (!count) throw new Error(`the bare SELECT ended without its count: …${tail.slice(-80)}`);
      return { n: Number(count[1]), s: (performance.now() - t) / 1000 };
    };
    console.log('full replication, taking turns (2 rounds each):');
    const rates: { service: number[]; bare: number[] } = { service: [], bare: [] };
    for (let round = 0; round < 2; round += 1) {
      const b = await baseline();
      const s = await replicate();
      if (b.n !== s.n) throw new Error(`replication read ${s.n} records, the bare SELECT ${b.n}`);
      rates.bare.push(b.n / b.s);
      rates.service.push(s.n / s.s);
      console.log(
        `  round ${round + 1}: bare SELECT ${b.n} records in ${b.s.toFixed(1)} s = ${(b.n / b.s).toFixed(0)}/s; nextLink replication ${s.n} in ${s.s.toFixed(1)} s = ${(s.n / s.s).toFixed(0)}/s`,
      );
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const ratio = mean(rates.service) / mean(rates.bare);
    console.log(`replication / bare SELECT: ${ratio.toFixed(2)} (target >= 0.50) ${ratio >= 0.5 ? 'MET' : 'NOT MET'}`);
  } finally {
    for (const s of servers) s.close();
    await runtime.close();
    await db.raw(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
