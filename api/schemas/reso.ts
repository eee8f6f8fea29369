import { objectSchema, requiredObject } from './object-schema.js';

/** Schemas of the RESO Web API's JSON answers (docs/reso.md): the service document, a collection page, an error. */

const context = { type: 'string', format: 'uri', description: 'The metadata URL and what the answer holds (OData context URL).' } as const;

export const resoSchemas = [
  objectSchema(
    'ResoServiceDocument',
    {
      '@odata.context': context,
      value: {
        type: 'array',
        items: requiredObject({ name: { type: 'string' }, kind: { const: 'EntitySet' }, url: { type: 'string' } }),
      },
    },
    { description: 'The resources this OData service serves.' },
  ),
  objectSchema(
    'ResoCollection',
    {
      '@odata.context': context,
      '@odata.count': { type: 'integer', minimum: 0, description: 'How many records match in all ($count=true).' },
      '@odata.nextLink': {
        type: 'string',
        format: 'uri',
        description: 'The next page: present only when more records follow. Send it back as it is.',
      },
      value: { type: 'array', items: { type: 'object', additionalProperties: true } },
    },
    {
      description:
        'A page of records, each with the fields $metadata declares (or those $select names), $expand adding Media, ListAgent and ListOffice. A record fetched by key is one such record at the top level with its own @odata.context.',
      required: ['@odata.context', 'value'],
    },
  ),
  objectSchema(
    'ResoError',
    {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', examples: ['BadRequest', 'NotFound', 'TooManyRequests', 'UnsupportedVersion', 'ServiceError'] },
          message: { type: 'string', description: 'What was wrong, naming the query option and the part it could not read.' },
          target: { type: 'string', description: 'The query option at fault ($filter, $orderby, …).' },
        },
      },
    },
    { description: 'OData\'s JSON error form, which this surface uses in place of the service\'s `{ "error": "..." }`.' },
  ),
] as const;
