import { parseArgs } from 'node:util';
import type { LocalService } from '../local-service.js';
import { createNamedOperatorToken, listOperatorTokens, OPERATOR_TOKEN_NAME, revokeNamedOperatorToken } from '../operators.js';
import { withConfiguredDb } from './configured-db.js';

const USAGE = `Named operator tokens (besides OPERATOR_TOKEN), stored hashed; a new token is printed once.

  npm run operator:token -- create --name alice
  npm run operator:token -- revoke --name alice
  npm run operator:token -- list

Uses DATABASE_URL, or the embedded database under DATA_DIR, like the service; while the service runs
on the embedded database, the command goes through it. Every change is in the audit log.`;

/** The running service's answer to one admin request, with its command token. */
async function askService(
  service: LocalService,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: { error?: string } & Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${service.port}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => ({})) };
}

async function main(): Promise<number> {
  const options = { name: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;
  let parsed: ReturnType<typeof parseArgs<{ allowPositionals: true; options: typeof options }>>;
  try {
    parsed = parseArgs({ allowPositionals: true, options });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const [command] = parsed.positionals;
  const name = parsed.values.name?.trim();
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (!['create', 'revoke', 'list'].includes(command ?? '') || (command !== 'list' && !(name && OPERATOR_TOKEN_NAME.test(name)))) {
    process.stderr.write(`expected create, revoke or list, and for create and revoke a --name of 1-64 letters, digits, . _ @ -\n\n${USAGE}\n`);
    return 2;
  }
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, command === 'list' ? 2 : undefined)}\n`);
  const fail = (message: string) => {
    process.stderr.write(`${message}\n`);
    return 1;
  };
  return withConfiguredDb(
    async (db) => {
      const actor = 'command:operator-token';
      if (command === 'list') {
        print(await listOperatorTokens(db));
        return 0;
      }
      if (command === 'create') {
        const created = await createNamedOperatorToken(db, name!, actor);
        if (!created) return fail(`an active token named ${name} exists; revoke it first`);
        print(created);
        return 0;
      }
      if (!(await revokeNamedOperatorToken(db, name!, actor))) return fail(`no active token named ${name}`);
      print({ revoked: name });
      return 0;
    },
    {
      // The service runs on the embedded database, which takes one process at a time: the command
      // goes through its admin API with the service's command token, as key:create does.
      whileRunning: async (service) => {
        const answer =
          command === 'list'
            ? await askService(service, 'GET', '/v1/admin/operator-tokens')
            : command === 'create'
              ? await askService(service, 'POST', '/v1/admin/operator-tokens', { name })
              : await askService(service, 'POST', `/v1/admin/operator-tokens/${encodeURIComponent(name!)}/revoke`);
        if (answer.status >= 300) return fail(`the running service (pid ${service.pid}) refused: ${answer.body.error ?? answer.status}`);
        print(answer.body);
        return 0;
      },
    },
  );
}

process.exitCode = await main();
