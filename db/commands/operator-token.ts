import { parseArgs } from 'node:util';
import { createOperatorToken, listOperatorTokens, recordAudit, revokeOperatorToken } from '../operators.js';
import { isUniqueViolation } from '../pg-errors.js';
import { withConfiguredDb } from './configured-db.js';

const USAGE = `Named operator tokens (besides OPERATOR_TOKEN), stored hashed; a new token is printed once.

  npm run operator:token -- create --name alice
  npm run operator:token -- revoke --name alice
  npm run operator:token -- list

Uses DATABASE_URL, or the embedded database under DATA_DIR, like the service. Every change is in the audit log.`;

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
  if (!['create', 'revoke', 'list'].includes(command ?? '') || (command !== 'list' && !(name && /^[A-Za-z0-9._@-]{1,64}$/.test(name)))) {
    process.stderr.write(`expected create, revoke or list, and for create and revoke a --name of 1-64 letters, digits, . _ @ -\n\n${USAGE}\n`);
    return 2;
  }
  return withConfiguredDb(async (db) => {
    const actor = 'command:operator-token';
    if (command === 'list') {
      process.stdout.write(`${JSON.stringify(await listOperatorTokens(db), null, 2)}\n`);
      return 0;
    }
    if (command === 'create') {
      const created = await db
        .transaction(async (trx) => {
          const token = await createOperatorToken(trx, name!);
          await recordAudit(trx, { actor, action: 'operator_token.create', target: name });
          return token;
        })
        .catch((err: unknown) => {
          if (isUniqueViolation(err)) return null; // one active token per name
          throw err;
        });
      if (!created) {
        process.stderr.write(`an active token named ${name} exists; revoke it first\n`);
        return 1;
      }
      process.stdout.write(`${JSON.stringify(created)}\n`);
      return 0;
    }
    const revoked = await revokeOperatorToken(db, name!);
    if (!revoked) {
      process.stderr.write(`no active token named ${name}\n`);
      return 1;
    }
    await recordAudit(db, { actor, action: 'operator_token.revoke', target: name });
    process.stdout.write(`${JSON.stringify({ revoked: name })}\n`);
    return 0;
  });
}

process.exitCode = await main();
