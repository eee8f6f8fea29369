/**
 * bench/webhook-fairness: how long one key's feed.completed takes to reach its receiver while
 * another key has a backlog of webhook events to a receiver that never answers. Key A registers an
 * endpoint on a receiver that takes connections and never answers, and asks for 200 test events
 * (`POST /v1/webhooks/{id}/test`); once the first has reached that receiver, key B (its endpoint on
 * a receiver answering at once) pushes a one-listing feed. Prints the time from B's push to its
 * feed.completed arriving, and how many of A's 200 events were still pending then (and never
 * attempted), against the embedded all-in-one (`npm start`: PGlite, the in-process queue) and web +
 * 1 worker on PostgreSQL and Redis, at the production WEBHOOK_TIMEOUT_MS (5 s). Target: B's
 * feed.completed within 2 s, while nearly all of A's backlog is still pending (docs/ingestion-
 * internals.md, Webhook deliveries). Gives up waiting after BENCH_GIVE_UP_S (default 400).
 *
 *   npm run bench:webhook-fairness
 *   npm run bench:webhook-fairness -- embedded      # or postgres: one of the two
 * Uses BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch database is
 * created beside it) and BENCH_REDIS_URL (default redis://127.0.0.1:6379).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../lib/free-port.js';
import { scratchDatabase, startRole, stopRole } from './roles.js';

const BACKLOG = 200;
const GIVE_UP_MS = Number(process.env.BENCH_GIVE_UP_S ?? 400) * 1000;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const OPERATOR_TOKEN = 'bench-operator-token-0123456789';

const LISTING =
  '<residential modTime="2024-03-01-10:00:00" status="current"><agentID>FAIRB</agentID><uniqueID>B1</uniqueID>' +
  '<headline>Home</headline><price>650000</price><address><streetNumber>1</streetNumber><street>Main Road</street>' +
  '<suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address><category name="House"/></residential>';

/** A receiver on loopback: `answer` false takes every request and never answers it. */
async function receiver(answer: boolean): Promise<{ url: string; arrived: { path: string; body: string; at: number }[]; server: Server }> {
  const arrived: { path: string; body: string; at: number }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      arrived.push({ path: req.url ?? '', body, at: performance.now() });
      if (answer) res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrived, server };
}

async function until(what: string, probe: () => boolean | Promise<boolean>, ms = GIVE_UP_MS): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) {
      console.log(`  gave up waiting for ${what} after ${ms / 1000} s`);
      return false;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

async function measure(label: string, base: string): Promise<void> {
  const call = async <Body = Record<string, unknown>>(key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Body };
  };
  const newKey = async (office: string) =>
    (await call(OPERATOR_TOKEN, 'POST', '/v1/admin/keys', { clientName: office, alertEmail: 'ops@example.com', officeIds: [office] })).body.key as string;
  const stuck = await receiver(false);
  const ok = await receiver(true);
  try {
    const keyA = await newKey('FAIRA');
    const keyB = await newKey('FAIRB');
    const a = (await call<{ endpoint: { id: string } }>(keyA, 'POST', '/v1/webhooks', { url: `${stuck.url}/a` })).body.endpoint.id;
    await call(keyB, 'POST', '/v1/webhooks', { url: `${ok.url}/b`, events: ['feed.completed'] });
    let accepted = 0;
    for (let i = 0; i < BACKLOG; i += 1) if ((await call(keyA, 'POST', `/v1/webhooks/${a}/test`)).status === 202) accepted += 1;
    await until("A's first event at its receiver", () => stuck.arrived.length > 0);
    const started = performance.now();
    const pushed = await call(keyB, 'POST', '/v1/feeds', {
      xml: `<?xml version="1.0" encoding="utf-8"?><propertyList>${LISTING}</propertyList>`,
      context: { currency: 'AUD', defaultCountry: 'AU', sourceLocale: 'en-AU' },
    });
    if (pushed.status >= 300) throw new Error(`B's push answered ${pushed.status}: ${JSON.stringify(pushed.body)}`);
    const arrived = await until("B's feed.completed", () => ok.arrived.some((r) => r.body.includes('feed.completed')));
    const ms = arrived ? ok.arrived.find((r) => r.body.includes('feed.completed'))!.at - started : null;
    const pending = (await call<{ deliveries: { attempts: number }[]; total: number }>(keyA, 'GET', `/v1/webhooks/${a}/deliveries?status=pending&limit=200`))
      .body;
    const untried = pending.deliveries.filter((d: { attempts: number }) => d.attempts === 0).length;
    console.log(
      `${label}: B's push answered ${pushed.status}; its feed.completed ${ms === null ? 'did not arrive' : `arrived ${(ms / 1000).toFixed(2)} s after the push`}; ` +
        `A's ${accepted} accepted test events then: ${pending.total} pending, ${untried} of them never attempted, ${stuck.arrived.length} requests held by A's receiver`,
    );
  } finally {
    stuck.server.closeAllConnections();
    ok.server.closeAllConnections();
    stuck.server.close();
    ok.server.close();
  }
}

const common = { OPERATOR_TOKEN, LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', WEBHOOK_TEST_RATE_LIMIT: '1000', FEED_SYNC_WAIT_MS: '0' };
const roles: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
let scratch: Awaited<ReturnType<typeof scratchDatabase>> | null = null;
const only = process.argv[2];
try {
  if (only !== 'postgres') {
    const port = await freePort();
    roles.push(await startRole('main.js', { ...common, DATA_DIR: dataDir, PORT: String(port) }, '"listening"'));
    await measure('embedded all-in-one (PGlite, in-process queue)', `http://127.0.0.1:${port}`);
    await stopRole(roles.pop()!);
  }
  if (only !== 'embedded') {
    scratch = await scratchDatabase(DATABASE_URL, `bench_webhooks_${process.pid}`);
    const webPort = await freePort();
    const env = { ...common, DATA_DIR: dataDir, DATABASE_URL: scratch.url, REDIS_URL, PORT: String(webPort) };
    roles.push(await startRole('api/main.js', env, '"listening"'));
    roles.push(await startRole('workers/main.js', env, '"worker started"'));
    await measure('web + 1 worker (PostgreSQL, BullMQ on Redis)', `http://127.0.0.1:${webPort}`);
  }
} finally {
  await Promise.all(roles.map(stopRole));
  await scratch?.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
