import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { buildOpenApi } from '../../api/openapi.js';
import { TAGS } from '../../api/openapi-tags.js';
import { REGISTERED_ROUTES } from '../../api/route-table.js';
import { schemas } from '../../api/schemas/index.js';
import { validatorFor } from '../../api/validators.js';
import { createAjv } from '../../lib/ajv.js';
import { feed, repoRoot } from '../helpers.js';
import { activeKey, officeListing } from '../ingest/client.js';
import { OPERATOR, startTestService } from '../service.js';

type Operation = {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  requestBody?: { content: Record<string, { schema: unknown; example?: unknown }> };
  responses: Record<string, { headers?: Record<string, unknown> }>;
};

/** openapi-typescript needs TypeScript 5's compiler API; it lives in a folder of its own with it (and openapi-fetch). */
const tools = resolve(repoRoot, 'tools/openapi-types');
function installTools(): void {
  if (existsSync(resolve(tools, 'node_modules/openapi-fetch')) && existsSync(resolve(tools, 'node_modules/openapi-typescript'))) return;
  const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', tools], { encoding: 'utf8' });
  expect(install.status, install.stderr).to.equal(0);
}

let generated: string | undefined;
/** The types openapi-typescript generates from the document (generated once; two tests read them). */
function generatedTypes(doc: unknown): string {
  if (generated !== undefined) return generated;
  installTools();
  const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  try {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
    const run = spawnSync(process.execPath, [resolve(tools, 'generate.mjs'), join(dir, 'openapi.json')], { encoding: 'utf8' });
    expect(run.status, run.stderr).to.equal(0);
    generated = run.stdout;
    return generated;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What client generators and linters rely on in the API description. */
describe('the API description as clients generate from it', () => {
  const doc = buildOpenApi() as {
    servers: unknown[];
    tags: { name: string }[];
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown> };
  };
  const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );

  it('compiles every named schema, as the service compiles each on first use (a broken one fails here, not in a request)', () => {
    // The service adds them without checking them against the meta-schema: checked here.
    const meta = createAjv();
    for (const schema of schemas) expect(meta.validateSchema(schema), `${schema.$id}: ${JSON.stringify(meta.errors)}`).to.equal(true);
    for (const schema of schemas) expect(() => validatorFor(schema.$id), schema.$id).to.not.throw();
  });

  it('names and groups every operation, uniquely; says which need no credential; names its server', () => {
    expect(operations.length).to.equal(REGISTERED_ROUTES.length);
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size, 'operationIds are unique').to.equal(ids.length);
    for (const { key, op } of operations) {
      expect(op.operationId, key).to.match(/^[a-z][A-Za-z]+$/);
      expect(op.tags, key).to.have.length(1);
      expect(
        TAGS.map((t) => t.name),
        key,
      ).to.include(op.tags![0]);
      expect(op.security, `${key} states its security`).to.be.an('array');
      if (key.includes('/v1/admin/') || key.startsWith('POST /v1/feeds') || key.startsWith('GET /v1/feeds')) expect(op.security, key).to.not.deep.equal([]);
    }
    expect(operations.find((o) => o.key === 'GET /v1/listings')!.op.security).to.deep.equal([]);
    expect(doc.servers).to.have.length(1);
    expect(doc.tags.map((t) => t.name)).to.deep.equal(['ingestion', 'webhooks', 'reads', 'reso', 'leads', 'alerts', 'admin', 'site', 'system']);
  });

  it('a strict validator accepts the feed request example against the request body schema (exactly one reading)', () => {
    const body = operations.find((o) => o.key === 'POST /v1/validate')!.op.requestBody!.content['application/json'];
    // The body schema with the document's components beside it, as a validator resolves them.
    const schema = JSON.parse(JSON.stringify({ ...(body.schema as object), $defs: doc.components.schemas }).replaceAll('"#/components/schemas/', '"#/$defs/'));
    const validate = createAjv().compile(schema);
    expect(validate(body.example), JSON.stringify(validate.errors)).to.equal(true);
  });

  it('generates TypeScript types (openapi-typescript) that type listings, projects, agents and offices by their fields', function () {
    this.timeout(180_000);
    const types = generatedTypes(doc);
    const schema = (name: string) => {
      const start = types.indexOf(`        ${name}: {`);
      expect(start, `${name} in the generated types`).to.be.at.least(0);
      return types.slice(start, types.indexOf('\n        };', start));
    };
    expect(schema('Listing'))
      .to.match(/listingKey: string;/)
      .and.match(/price: null \| components\["schemas"\]\["Price"\];/)
      .and.match(/media: components\["schemas"\]\["MediaItem"\]\[\];/);
    expect(schema('Project')).to.match(/stage: "off_the_plan" \| "under_construction" \| "completed";/);
    expect(schema('Agent')).to.match(/listingCount: number;/);
    expect(schema('Office')).to.match(/localities: string\[\];/);
    expect(schema('ListingPage')).to.match(/listings: components\["schemas"\]\["PublicListing"\]\[\];/);
    // Public answers carry no bookkeeping; the stored record (the office's own read) does.
    expect(schema('PublicListing'))
      .to.match(/listingKey: string;/)
      .and.not.match(/contentHash/);
    expect(types).to.match(/searchListings: \{/);
    // The events a receiver handles are typed too (the description's webhooks section).
    expect(types).to.match(/export interface webhooks \{/);
    expect(schema('WebhookListingPriceChanged')).to.match(/type: "listing\.price_changed";/);
    expect(schema('WebhookFeedEvent')).to.match(/outcome: "ok" \| "with_invalid"/);
  });

  it('describes the headers answers carry: X-Request-Id everywhere, Retry-After on 429 and 503, RateLimit on limited routes, Location on a stored feed', () => {
    const responses = Object.values(doc.paths).flatMap((ops) =>
      Object.values(ops as Record<string, { responses: Record<string, { headers?: object }> }>).flatMap((op) => Object.entries(op.responses)),
    );
    expect(responses.filter(([, r]) => !r.headers || !('X-Request-Id' in r.headers)).map(([code]) => code)).to.deep.equal([]);
    expect(responses.filter(([code, r]) => (code === '429' || code === '503') && !('Retry-After' in (r.headers ?? {})))).to.deep.equal([]);
    const headersOf = (path: string, method: string, code: string) => Object.keys(doc.paths[path][method].responses[code].headers ?? {});
    expect(headersOf('/v1/leads', 'post', '202')).to.include.members(['RateLimit', 'RateLimit-Policy']);
    expect(headersOf('/v1/listings', 'get', '200')).to.not.include('RateLimit');
    expect(headersOf('/v1/feeds', 'post', '202')).to.include('Location');
  });

  it("passes Redocly's recommended-strict rules with no error", function () {
    this.timeout(60_000);
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      writeFileSync(join(dir, 'redocly.yaml'), 'extends:\n  - recommended-strict\n');
      const cli = resolve(repoRoot, 'node_modules/@redocly/cli/bin/cli.js');
      const run = spawnSync(process.execPath, [cli, 'lint', file, '--config', join(dir, 'redocly.yaml'), '--format=stylish'], {
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      });
      expect(run.status, run.stdout + run.stderr).to.equal(0);
      expect(run.stdout + run.stderr).to.match(/Your API description is valid/);
      expect(run.stdout + run.stderr).not.to.match(/\berror\b/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('generates a client (openapi-typescript, openapi-fetch) that a program compiles against with no casts and runs: dry runs, push, poll, search, operator list', async function () {
    this.timeout(180_000);
    installTools();
    const program = readFileSync(resolve(tools, 'client-check/program.ts'), 'utf8');
    const code = program.replace(/^\s*\/\/.*$/gm, '');
    expect(code.match(/\bas (?!const\b)[A-Za-z{[]/g) ?? [], 'no type assertions').to.deep.equal([]);
    expect(code).to.not.match(/@ts-|: any\b|!\./);
    const dir = mkdtempSync(join(tools, 'client-'));
    const svc = await startTestService({ database: 'pglite' });
    try {
      writeFileSync(join(dir, 'api.d.ts'), generatedTypes(doc));
      writeFileSync(join(dir, 'program.ts'), program);
      // Mistakes the generated types must refuse (each marked @ts-expect-error: one that compiled fails tsc).
      writeFileSync(join(dir, 'typos.ts'), readFileSync(resolve(tools, 'client-check/typos.ts'), 'utf8'));
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'nodenext',
            moduleResolution: 'nodenext',
            strict: true,
            outDir: 'out',
            types: ['node'],
            skipLibCheck: true,
          },
          files: ['program.ts', 'typos.ts', 'api.d.ts'],
        }),
      );
      const compiled = spawnSync(process.execPath, [resolve(tools, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
      expect(compiled.status, compiled.stdout + compiled.stderr).to.equal(0);

      const key = await activeKey(svc.db, ['OFF1']);
      const xml = feed(officeListing('OFF1', 'GEN1'));
      // Not spawnSync: the service answers from this very process.
      const run = await promisify(execFile)(process.execPath, [join(dir, 'out/program.js'), svc.url, key, OPERATOR, xml], { encoding: 'utf8' });
      expect(JSON.parse(run.stdout), run.stderr).to.deep.equal({
        dryRunXml: 1,
        dryRunReso: 1,
        pushed: 1,
        polled: 'done',
        found: ['GEN1'],
        nextOffset: null,
        outcomes: ['ok'],
      });
    } finally {
      await svc.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
