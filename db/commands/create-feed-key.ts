import { parseArgs } from 'node:util';
import { officeIdProblem } from '../../lib/office-id.js';
import { createFeedKey } from '../feed-keys.js';
import { withConfiguredDb } from './configured-db.js';

const USAGE = `Creates an already-active feed key (for operations and scripts) and prints it once.

  npm run key:create -- --client "Ops import" --email ops@example.com --office OFF1 [--office OFF2 ...]

Uses DATABASE_URL, or the embedded database under DATA_DIR, like the service; while the service runs\non the embedded database, the key is made through it.`;

/** Parses the arguments, creates the key, prints `{ id, key, status, officeIds }` as JSON. */
async function main(): Promise<number> {
  let values: { client?: string; email?: string; office?: string[]; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: { client: { type: 'string' }, email: { type: 'string' }, office: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const problems = [
    !values.client?.trim() && '--client is required',
    !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.email ?? '') && '--email must be an email address',
    !values.office?.some((o) => o.trim()) && 'at least one --office is required',
    ...(values.office ?? []).map((o) => o.trim() && officeIdProblem(o.trim())),
  ].filter(Boolean);
  if (problems.length) {
    process.stderr.write(`${problems.join('\n')}\n\n${USAGE}\n`);
    return 2;
  }
  const input = { clientName: values.client!.trim(), alertEmail: values.email!, officeIds: values.office!.map((o) => o.trim()).filter(Boolean) };
  const print = (key: { id: string; key: string; status: string; officeIds: string[] }) =>
    process.stdout.write(`${JSON.stringify({ id: key.id, key: key.key, status: key.status, officeIds: key.officeIds })}\n`);
  return withConfiguredDb(
    async (db) => {
      const { key, secret } = await createFeedKey(db, { ...input, status: 'active' });
      print({ ...key, key: secret });
      return 0;
    },
    {
      // The service runs on the embedded database: the key is made through it (POST /v1/admin/keys).
      whileRunning: async (service) => {
        const res = await fetch(`http://127.0.0.1:${service.port}/v1/admin/keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(input),
        });
        const body = (await res.json()) as { error?: string; id: string; key: string; status: string; officeIds: string[] };
        if (res.status !== 201) {
          process.stderr.write(`the running service (pid ${service.pid}) refused the key: ${body.error ?? res.status}\n`);
          return 1;
        }
        print(body);
        return 0;
      },
    },
  );
}

process.exitCode = await main();
