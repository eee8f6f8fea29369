import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is published as CommonJS; under nodenext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** One JSON Schema 2020-12 validator for requests, responses and configuration (the OpenAPI 3.1 dialect). */
export function createAjv(options: { coerceTypes?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    coerceTypes: options.coerceTypes ?? false,
    useDefaults: true,
  });
  addFormats(ajv);
  // OpenAPI annotations that appear inside our schemas.
  ajv.addKeyword('example');
  return ajv;
}

/** Turns ajv errors into one sentence per problem, naming the offending field. */
export function describeAjvErrors(errors: ErrorObject[] | null | undefined, root = 'body'): string[] {
  if (!errors) return [];
  return errors.map((e) => {
    const where = e.instancePath ? `${root}${e.instancePath.replace(/\//g, '.')}` : root;
    switch (e.keyword) {
      case 'additionalProperties':
        return `${where} has an unknown property "${(e.params as { additionalProperty: string }).additionalProperty}"`;
      case 'required':
        return `${where} is missing the required property "${(e.params as { missingProperty: string }).missingProperty}"`;
      case 'enum':
        return `${where} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
      default:
        return `${where} ${e.message ?? 'is invalid'}`;
    }
  });
}
