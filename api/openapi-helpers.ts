import { OFFICE_ID_PATTERN, OFFICE_ID_RULE } from '../lib/office-id.js';
import { schemas } from './schemas/index.js';

/** Rewrites our ajv-style `$ref: "Name"` into OpenAPI component references and drops `$id`. */
export function toComponent(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponent);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === '$id') continue;
      out[k] = k === '$ref' && typeof v === 'string' && !v.startsWith('#') ? `#/components/schemas/${v}` : toComponent(v);
    }
    return out;
  }
  return value;
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
/** The feed body forms of /v1/validate and /v1/feeds: a JSON feed request, a raw JSON document (RESO or project), or raw REAXML. */
export const feedRequestBody = {
  required: true,
  content: {
    'application/json': {
      // anyOf, not oneOf: a RESO record may carry any Data Dictionary field, so the format (in the
      // body, or format=reso|project in the query) says which form it is. Each member requires what
      // marks its form (xml, projects, ListingKey or value), so in a generated client an object
      // with a misspelt field (in context, say) matches none of them and fails to compile.
      schema: {
        anyOf: [
          ref('FeedRequest'),
          ref('ProjectFeed'),
          {
            type: 'object',
            description: 'A RESO Property record (format=reso in the query). Fields are RESO Data Dictionary names.',
            required: ['ListingKey'],
            properties: { ListingKey: { type: 'string' } },
            additionalProperties: true,
          },
          {
            type: 'object',
            description: 'An OData collection of RESO Property records in value (format=reso in the query).',
            required: ['value'],
            properties: { value: { type: 'array', items: { type: 'object', additionalProperties: true } } },
            additionalProperties: true,
          },
        ],
      },
      // What "Try it out" sends as it stands: one valid current listing.
      example: {
        xml: `<propertyList><residential modTime="2024-03-01-10:00:00" status="current"><agentID>XNWXNW</agentID><uniqueID>DEMO-1</uniqueID><headline>Sunny cottage</headline><description>Two bedrooms near the park.</description><price>650000</price><address><streetNumber>12</streetNumber><street>Sample Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address></residential></propertyList>`,
        context: { currency: 'AUD' },
      },
    },
    'application/xml': { schema: { type: 'string' } },
    'text/xml': { schema: { type: 'string' } },
  },
};
export const errorResponse = (description: string) => ({ description, content: json('Error') });
/** A JSON answer of a named schema. */
export const answer = (description: string, name: string) => ({ description, content: json(name) });
/** A response header (text unless its schema says otherwise). */
export const header = (description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ description, schema });
/** The security of an operator route, and the errors every one of them may answer. */
export const operatorSecurity = [{ operator: [] }];
export const operatorErrors = { 401: errorResponse('Operator credential missing or wrong'), 503: errorResponse('Database unavailable') };

/**
 * Query parameters from a named object schema. Their examples are left out unless asked for:
 * Swagger UI's "Try it out" would send them, and a feed request in the JSON body form takes no
 * query parameters. With examples, each becomes the parameter's example (the search's, say).
 */
export function queryParameters(schemaId: string, options: { examples?: boolean } = {}): unknown[] {
  const query = schemas.find((s) => s.$id === schemaId) as unknown as { properties: Record<string, Record<string, unknown>> };
  return Object.entries(query.properties).map(([name, { example, deprecated, ...schema }]) => ({
    name,
    in: 'query',
    required: false,
    ...(deprecated ? { deprecated: true } : {}),
    ...(options.examples && example !== undefined ? { example } : {}),
    schema: toComponent(schema),
  }));
}

export const uuidPath = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: { type: 'string', format: 'uuid' } });

/** An office id in a path ({office}), with its rule. */
export const officePath = {
  name: 'office',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: OFFICE_ID_PATTERN },
  description: `An office id: ${OFFICE_ID_RULE}.`,
} as const;
