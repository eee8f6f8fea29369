import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { readFeedBody } from '../../db/feed-bodies.js';
import { databaseAnswers } from '../../db/health.js';
import { createDb, type Db, migrateDown, migrateToLatest } from '../../db/knex.js';
import { refreshSourceHashes } from '../../db/listings-store.js';
import { migrationSource } from '../../db/migration-source.js';
import { EMBEDDED_START_MS, postgresUrl, storeTestFeedEvent } from '../helpers.js';
import { scratchEmbeddedDatabase, startTestService } from '../service.js';

const backends: { name: string; make(): { db: Db; cleanup(): Promise<void> } }[] = [
  {
    name: 'embedded PGlite',
    make() {
      const dataDir = mkdtempSync(join(tmpdir(), 'db-test-'));
      return { db: createDb({ databaseUrl: null, dataDir }), cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'PostgreSQL',
    make() {
      const schema = `test_db_${process.pid}_${Date.now()}`;
      const db = createDb({ databaseUrl: postgresUrl, dataDir: '', schema });
      return {
        db,
        cleanup: async () => {
          const admin = createDb({ databaseUrl: postgresUrl, dataDir: '' });
          await admin.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
          await admin.destroy();
        },
      };
    },
  },
];

for (const backend of backends) {
  describe(`database layer on ${backend.name}`, function () {
    // The first test starts an empty database: on PGlite that is initdb and every migration (a
    // bound for a busy machine, not a measurement).
    this.timeout(EMBEDDED_START_MS);
    let db: Db;
    let cleanup: () => Promise<void>;
    before(() => ({ db, cleanup } = backend.make()));
    after(async () => {
      await db.destroy().catch(() => undefined);
      await cleanup();
    });

    const ALL = [
      '20261122000000_create_listings',
      '20261122010000_create_ingestion',
      '20261122020000_listing_source_hash',
      '20261122030000_search_and_directory',
      '20261122040000_operators_and_site',
      '20261122050000_leads',
      '20261122060000_projects',
      '20261122070000_sftp_drops',
      '20261122080000_lz4_compression',
      '20261122090000_feed_event_progress',
      '20261125000000_public_patch',
      '20261125010000_project_public_patch',
      '20261125020000_operator_sessions',
      '20261125030000_source_display',
      '20261125040000_directory_office_names',
      '20261125050000_portal_search',
      '20261125060000_search_sort_indexes',
      '20261125070000_directory_office_logo',
      '20261125080000_feed_outcome',
      '20261125090000_feed_idempotency',
      '20261125100000_webhooks',
      '20261125110000_feed_started_at',
      '20261125120000_reso_replication_index',
      '20261125130000_console_figures',
      '20261125140000_locked_statements',
      '20261125150000_directory_stale',
      '20261125165600_open_push_lock',
      '20261125165600_webhook_previous_secrets',
      '20261125165700_webhook_endpoint_lanes',
      '20261128100000_change_log',
      '20261128110000_directory_modification_timestamp',
      '20261128120000_lead_feed',
      '20261128130000_lead_delivery_paths',
      '20261128140000_listing_events',
      '20261128150000_reso_text_indexes',
      '20261128160000_saved_search_alerts',
      '20261128170000_strong_text_index',
      '20261128200000_sequence_change_log',
      '20261128213000_change_log_passes',
      '20261129000000_map_newest_index',
    ];
    it('applies migrations once, idempotently, and rolls them back', async () => {
      expect(await migrateToLatest(db)).to.deep.equal(ALL);
      expect(await migrateToLatest(db)).to.deep.equal([]);
      // A start finds "nothing to do" with one query; anything else is still the migrator's: a
      // migration not applied is applied, and one applied that the source does not list is refused.
      await db.migrate.down({ migrationSource, schemaName: db.schemaName });
      expect(await migrateToLatest(db)).to.deep.equal([ALL.at(-1)]);
      const unknown = { name: '29990101000000_not_in_the_source', batch: 99, migration_time: new Date() };
      await db.withSchema(db.schemaName).table('knex_migrations').insert(unknown);
      const refused = await migrateToLatest(db).then(
        () => null,
        (err: Error) => err.message,
      );
      expect(refused).to.match(/corrupt/);
      await db.withSchema(db.schemaName).table('knex_migrations').where({ name: unknown.name }).delete();
      const columns = await db('information_schema.columns').where({ table_schema: db.schemaName, table_name: 'listings' }).pluck('column_name');
      expect(columns).to.include.members(['listing_key', 'office', 'unique_id', 'mod_time', 'content_hash', 'hidden', 'data']);
      // lz4 for large values where the server has it (PostgreSQL here), pglz (the default) on PGlite.
      const compression = await db.raw("SELECT attcompression::text AS c FROM pg_attribute WHERE attrelid = 'listings'::regclass AND attname = 'data'");
      expect(compression.rows[0].c).to.equal(db.embedded ? '' : 'l');
      await db('listings').insert({
        listing_key: 'A/1',
        office: 'A',
        unique_id: '1',
        format: 'reaxml',
        status: 'active',
        mod_time: '2024-01-01T00:00:00Z',
        content_hash: 'h',
        data: { a: 1 },
      });
      const row = await db('listings').first();
      expect(row.data).to.deep.equal({ a: 1 });
      expect(row.mod_time.toISOString()).to.equal('2024-01-01T00:00:00.000Z');
      await migrateDown(db);
      expect(await db.schema.hasTable('listings')).to.equal(false);
      expect(await db.schema.hasTable('feed_events')).to.equal(false);
      expect(await migrateToLatest(db)).to.deep.equal(ALL);
    });

    it('stores a feed body in chunks and reads back exactly the bytes sent', async () => {
      // Every byte value, over more than one 1 MB chunk, in uneven pieces as a request streams them.
      const body = Buffer.alloc(2_500_000);
      for (let i = 0; i < body.length; i += 1) body[i] = (i * 131 + (i >> 8)) & 0xff;
      const pieces = [body.subarray(0, 70_001), body.subarray(70_001, 1_800_000), body.subarray(1_800_000)];
      const event = await storeTestFeedEvent(db, ['OFF1'], pieces);
      expect(event.bodyBytes).to.equal(body.length);
      expect(event.bodySha256).to.equal(createHash('sha256').update(body).digest('hex'));
      const chunks: Buffer[] = [];
      for await (const chunk of readFeedBody(db, event.id)) chunks.push(chunk);
      // Stored as 1.8 MB (the first 1 MB flush) and the rest; read back a stored chunk at a time.
      expect(chunks.map((c) => c.length)).to.deep.equal([1_800_000, 700_000]);
      expect(Buffer.concat(chunks).equals(body)).to.equal(true);

      // A reader that stops after the first chunk leaves no connection busy: more early stops than
      // the pool has connections, then a whole read and a query, all answer.
      for (let i = 0; i < 12; i += 1) {
        for await (const chunk of readFeedBody(db, event.id)) {
          expect(chunk.length).to.equal(1_800_000);
          break;
        }
      }
      let total = 0;
      for await (const chunk of readFeedBody(db, event.id)) total += chunk.length;
      expect(total).to.equal(body.length);
    });

    it('leaves nothing holding a chunk once it is read (no timer left armed per chunk)', async () => {
      // pg arms a timer per query that only the query's callback clears; a COPY TO never called it,
      // so every chunk read stayed referenced for the statement timeout (a large feed held its body).
      const event = await storeTestFeedEvent(db, ['OFF1'], [Buffer.alloc(2_500_000, 0x41)]);
      const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
      const before = timers();
      for (let i = 0; i < 4; i += 1) for await (const chunk of readFeedBody(db, event.id)) expect(chunk[0]).to.equal(0x41);
      // Before the fix, each chunk read left its timer (8 here); none is left now.
      expect(timers() - before).to.be.below(3);
    });

    it('reads nothing for a feed with no stored body', async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of readFeedBody(db, '00000000-0000-4000-8000-000000000000')) chunks.push(chunk);
      expect(chunks).to.deep.equal([]);
    });

    it('stamps fingerprints only where the content is still the one compared', async () => {
      const row = (key: string, hash: string) => ({
        listing_key: key,
        office: 'FP',
        unique_id: key.slice(3),
        format: 'reaxml',
        status: 'active',
        mod_time: '2024-01-01T00:00:00Z',
        content_hash: hash,
        source_hash: 'reaxml0:old',
        data: {},
      });
      await db('listings').insert([row('FP/1', 'c1'), row('FP/2', 'c2')]);
      await refreshSourceHashes(db, [
        { key: 'FP/1', sourceHash: 'reaxml1:new1', contentHash: 'c1' },
        { key: 'FP/2', sourceHash: 'reaxml1:new2', contentHash: 'changed-meanwhile' },
      ]);
      expect(await db('listings').where('office', 'FP').orderBy('listing_key').pluck('source_hash')).to.deep.equal(['reaxml1:new1', 'reaxml0:old']);
    });

    it('readiness follows the database: 200 while it answers, 503 once it is gone', async () => {
      expect(await databaseAnswers(db)).to.equal(true);
      const server = await startTestService({ database: db.embedded ? 'pglite' : 'postgres', db });
      try {
        expect((await fetch(`${server.url}/readyz`)).status).to.equal(200);
        await db.destroy();
        const res = await fetch(`${server.url}/readyz`);
        expect(res.status).to.equal(503);
        expect(await res.json()).to.deep.equal({ status: 'unavailable', error: 'database unavailable', checks: { database: 'unavailable' } });
        expect((await fetch(`${server.url}/healthz`)).status).to.equal(200); // liveness has no dependency checks
      } finally {
        await server.stop();
      }
    });
  });
}

describe('embedded database settings', () => {
  it("runs PGlite's PostgreSQL with the shared_buffers it is given, and PostgreSQL's default without", async () => {
    for (const [sharedBuffers, expected] of [
      ['16MB', '16MB'],
      [null, '128MB'],
    ] as const) {
      // A copy of the migrated folder: shared_buffers is set as PGlite starts, whatever the folder holds.
      const { db, drop } = await scratchEmbeddedDatabase({ sharedBuffers });
      try {
        const { rows } = await db.raw('SHOW shared_buffers');
        expect(rows[0].shared_buffers).to.equal(expected);
      } finally {
        await drop();
      }
    }
  });
});

describe('migrations on PostgreSQL when several processes start at once', () => {
  it('applies each migration once while web, worker and SFTP roles migrate one new schema together', async () => {
    for (let round = 0; round < 3; round++) {
      const schema = `test_migrate_race_${process.pid}_${Date.now()}_${round}`;
      const roles = Array.from({ length: 4 }, () => createDb({ databaseUrl: postgresUrl, dataDir: '', schema }));
      try {
        const results = await Promise.allSettled(roles.map((db) => migrateToLatest(db)));
        const failed = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason?.message ?? r.reason)] : []));
        expect(failed, 'every role starts').to.deep.equal([]);
        const applied = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
        expect(applied.length, 'each migration applied once in all').to.equal(new Set(applied).size);
        const recorded = await roles[0]('knex_migrations').count<{ n: string }[]>({ n: '*' });
        expect(Number(recorded[0].n)).to.equal(applied.length);
      } finally {
        await roles[0].raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
        await Promise.all(roles.map((db) => db.destroy()));
      }
    }
  });
});
