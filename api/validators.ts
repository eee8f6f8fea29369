import { createAjv, describeAjvErrors } from '../lib/ajv.js';
import { badRequest } from '../lib/errors.js';
import { nulPath } from './middleware/refuse-nul.js';
import { schemas } from './schemas/index.js';

// Added without checking each against the JSON Schema meta-schema (ajv's default), which took
// 100-300 ms of every web process's start: the test that compiles every schema checks that too.
const ajv = createAjv();
for (const schema of schemas) ajv.addSchema(schema, undefined, undefined, false);
/** Query strings carry numbers as text: this instance coerces them (and applies defaults). */
const queryAjv = createAjv({ coerceTypes: true });
for (const schema of schemas) queryAjv.addSchema(schema, undefined, undefined, false);
// Each schema is compiled on its first use: compiling all of them took about 380 ms of every web
// process's start. A schema that does not compile fails the test that compiles every one
// (test/api/openapi.test.ts), so it never reaches a running service.

/**
 * Validates `value` against a named schema (applying defaults) or throws a 400 naming every
 * problem. A NUL character in any string is a 400 naming the field (no text column can hold it),
 * except in the fields listed in nulAllowedIn (a feed document, whose reader strips them).
 */
export function assertValid<T>(schemaId: string, value: unknown, root: string, options: { nulAllowedIn?: string[] } = {}): T {
  const validate = ajv.getSchema(schemaId);
  if (!validate) throw new Error(`unknown schema ${schemaId}`);
  const nul = nulPath(value, root, new Set(options.nulAllowedIn?.map((field) => `${root}.${field}`)));
  if (nul) throw badRequest(`${nul} contains a NUL character (U+0000), which no text field can hold`);
  if (!validate(value)) throw badRequest(describeAjvErrors(validate.errors, root).join('; '));
  return value as T;
}

/** For tests and response checks: the compiled validator of a named schema. */
export function validatorFor(schemaId: string) {
  const validate = ajv.getSchema(schemaId);
  if (!validate) throw new Error(`unknown schema ${schemaId}`);
  return validate;
}

/** Validates a query string against a named schema, coercing numbers, or throws a 400 naming each parameter. */
export function assertValidQuery<T>(schemaId: string, query: Record<string, unknown>): T {
  const validate = queryAjv.getSchema(schemaId);
  if (!validate) throw new Error(`unknown schema ${schemaId}`);
  const value = { ...query };
  for (const [k, v] of Object.entries(value)) if (Array.isArray(v)) throw badRequest(`query parameter ${k} is given more than once`);
  if (!validate(value)) throw badRequest(describeAjvErrors(validate.errors, 'query').join('; '));
  return value as T;
}
