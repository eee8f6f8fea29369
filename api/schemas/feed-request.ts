import type { FeedFormat } from '../../pipeline/types.js';
import { objectSchema } from './object-schema.js';

/** JSON Schemas of the feed request (docs/ingestion.md); ajv validates with these and the OpenAPI document publishes them. */

const currency = { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'ISO-4217 currency code, injected on every price.', example: 'AUD' } as const;
const country = { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'ISO-3166 alpha-2 fallback country (default AU).', example: 'AU' } as const;
const locale = {
  type: 'string',
  pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$',
  description:
    "Locale of the feed text. Default: the country's usual language with the country (defaultCountry AU: en-AU; US: en-US; FR: fr-FR), by the Unicode CLDR likely-subtags data.",
  example: 'en-AU',
} as const;
const officeId = { type: 'string', minLength: 1, maxLength: 200, description: "Overrides the feed's agentID as the office id." } as const;
const mode = {
  type: 'string',
  enum: ['full', 'incremental'],
  description: 'full reconciles (archives absent listings); incremental upserts only. Default incremental.',
} as const;
const format = {
  type: 'string',
  enum: ['reaxml', 'reso', 'project'],
  description: 'Feed format; default reaxml. reso: a RESO Web API Property record or collection (JSON); project: a project document (JSON, see ProjectFeed).',
} as const;

export const feedContextSchema = {
  $id: 'FeedContext',
  type: 'object',
  additionalProperties: false,
  properties: { currency, defaultCountry: country, sourceLocale: locale, sourceOfficeId: officeId },
} as const;

export const feedRequestSchema = objectSchema(
  'FeedRequest',
  {
    xml: { type: 'string', minLength: 1, description: 'The feed document as text: REAXML, or for format reso and project the JSON document.' },
    mode,
    format,
    context: { $ref: 'FeedContext' },
  },
  { additionalProperties: false, required: ['xml'] },
);

/** An older query name of a context field, still accepted (deprecated in the API description). */
const olderName = <T extends object>(schema: T, name: string) =>
  ({ ...schema, deprecated: true, description: `The older name of ${name}, still accepted; give one of the two.` }) as const;

/**
 * Query parameters of the raw forms (the context travels here), named as in a JSON feed request's
 * `context`, so one set of names serves both forms.
 */
export const feedQuerySchema = {
  $id: 'FeedQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    currency,
    defaultCountry: country,
    sourceLocale: locale,
    sourceOfficeId: officeId,
    mode,
    format,
    country: olderName(country, 'defaultCountry'),
    locale: olderName(locale, 'sourceLocale'),
    officeId: olderName(officeId, 'sourceOfficeId'),
  },
} as const;

export interface FeedContextBody {
  currency?: string;
  defaultCountry?: string;
  sourceLocale?: string;
  sourceOfficeId?: string;
}

export interface FeedRequestBody {
  xml: string;
  mode?: 'full' | 'incremental';
  format?: FeedFormat;
  context?: FeedContextBody;
}

export interface FeedQuery extends FeedContextBody {
  /** Older names of defaultCountry, sourceLocale and sourceOfficeId. */
  country?: string;
  locale?: string;
  officeId?: string;
  mode?: 'full' | 'incremental';
  format?: FeedFormat;
}
