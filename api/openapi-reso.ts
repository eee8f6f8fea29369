import { RESO_DEFAULT_PAGE, RESO_MAX_EXPANDED_PAGE, RESO_MAX_PAGE, RESO_MAX_SKIP } from './routes/reso.js';

const odata = (name: string) => ({ 'application/json;odata.metadata=minimal': { schema: { $ref: `#/components/schemas/${name}` } } });
const odataError = (description: string) => ({ description, content: odata('ResoError') });
const option = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});

const ERRORS = {
  400: odataError(
    `A query it cannot run: the message names the option and the part it could not read. Also an OData-Version it does not speak, and a $skip over ${RESO_MAX_SKIP} (follow @odata.nextLink instead).`,
  ),
  406: odataError(
    'An Accept header or $format the service cannot meet: data requests answer application/json only (media type parameters such as odata.metadata are not held against it), $metadata application/xml only',
  ),
  429: odataError('Too many requests from this address this minute (RESO_RATE_LIMIT); Retry-After says when to come back'),
  431: odataError('The URL and headers are longer than the 16 KB the service reads (a $filter of thousands of values): split the request'),
  503: odataError(
    'Database unavailable; the read did not finish within DB_READ_TIMEOUT_MS (code ServiceUnavailable); or too many costly queries are running at once (Retry-After says when to come back)',
  ),
};

/** The RESO Web API (OData 4.0) at /v1/reso: docs/reso.md has the fields, the mapping and examples. */
export function resoPaths(): Record<string, unknown> {
  return {
    '/v1/reso': {
      get: {
        summary: 'RESO Web API service document: the resources Property, Member, Office, Media, OpenHouse, EntityEvent and Lookup',
        description:
          'The OData service root. No key is needed; answers carry OData-Version: 4.0. Limited per client address per minute (RESO_RATE_LIMIT, 600).',
        responses: { 200: { description: 'The resources', content: odata('ResoServiceDocument') }, ...ERRORS },
      },
    },
    '/v1/reso/$metadata': {
      get: {
        summary:
          'RESO Web API metadata (CSDL XML): every field with its RESO Data Dictionary name and type; lookup fields are Edm.String annotated with their LookupName',
        description:
          'CSDL XML only: $format=json or an Accept without application/xml (or text/xml, */*) is a 406 in the OData error form; JSON CSDL is not served.',
        parameters: [option('$format', 'xml (or application/xml); anything else is a 406.')],
        responses: { 200: { description: 'EDMX 4.0', content: { 'application/xml': { schema: { type: 'string' } } } }, ...ERRORS },
      },
    },
    '/v1/reso/{resourcePath}': {
      get: {
        summary: 'RESO Web API records: a collection (Property, Member, Office, Media, OpenHouse, EntityEvent, Lookup) or one record by key',
        description: [
          "`Property` (and Member, Office, Media, OpenHouse: the open homes not yet ended) answers a page of records; `Property('OFF1%2FL1')` one record by its key (a / in a key is sent as %2F; a ' as '').",
          'Only public listings, as the public sees them: a withheld price is null, a withheld street and number are null, and hidden, withdrawn, off-market and archived listings are absent.',
          `$top is the page size, as MLS replication providers use it (not the total, as plain OData has it): a page holds $top records (${RESO_DEFAULT_PAGE} without it; Prefer: odata.maxpagesize=N asks too, the smaller wins), at most ${RESO_MAX_PAGE} (${RESO_MAX_EXPANDED_PAGE} with $expand), a larger $top served in pages of that maximum, never refused. @odata.nextLink is present whenever more records match (never after $top=0); it pages on after the last record sent in pages of the same size, so writes between pages neither repeat nor skip a record.`,
          'A collection read leaves out records stamped after the commit horizon: the start of the oldest write still open (milliseconds, while a feed batch or a directory refresh commits), whatever the order asked for. So replication by ModificationTimestamp (Property, Member, Office and Media all carry it) never skips a record still being written, and $orderby never changes which records match or @odata.count.',
          "`EntityEvent` (RESO RCP-027) is the service's ordered change log: EntityEventSequence (Edm.Int64, the key; it only grows, in the order changes committed), ResourceName (Property, Member or Office), ResourceRecordKey and ResourceRecordUrl (the record's URL). Read the events after your checkpoint (`$filter=EntityEventSequence gt N&$orderby=EntityEventSequence`) and fetch each record named: a 404 means delete your copy. A Property event also stands for its Media (read them again with $expand=Media). Events are kept CHANGE_LOG_DAYS (30) days: a checkpoint older than the oldest event kept is a 410 (code CheckpointExpired) telling the client to replicate from scratch.",
          "Lookup fields (StandardStatus, PropertyType, City, MlsStatus, …) are strings holding the Data Dictionary's display names (`Active Under Contract`), as Data Dictionary 2.0 recommends; `Lookup` (LookupKey `LookupName:LookupValue`, LookupName, LookupValue, StandardLookupValue, LegacyODataValue, ModificationTimestamp) lists every value a lookup field can hold. A filter takes a Data Dictionary value by its display name or its legacy OData value (`ActiveUnderContract`, or `org.reso.metadata.StandardStatus'ActiveUnderContract'`).",
        ].join('\n\n'),
        parameters: [
          {
            name: 'resourcePath',
            in: 'path',
            required: true,
            description: "Property, Member, Office, Media, OpenHouse, EntityEvent or Lookup; or Resource('key') for one record",
            schema: { type: 'string' },
            examples: { collection: { value: 'Property' }, byKey: { value: "Property('OFF1%2FL1')" } },
          },
          option(
            '$filter',
            "Comparisons (eq, ne, gt, ge, lt, le), in, and, or, not and parentheses over the fields $metadata declares, and the functions now(), contains, startswith, endswith, tolower, toupper (text fields), year, month, day, date (dates and timestamps), e.g. `ListPrice ge 500000 and StandardStatus eq 'Active Under Contract'` or `contains(tolower(City),'rich') and ModificationTimestamp lt now()`. A number out of range (1e999999) is a 400 naming it.",
          ),
          option('$select', 'Fields to answer with, separated by commas.'),
          option('$orderby', 'Fields, each optionally followed by asc or desc, separated by commas; ties go by the key. Missing values sort last.'),
          option(
            '$top',
            `The page size (at most ${RESO_MAX_PAGE}; a larger one is served in pages of ${RESO_MAX_PAGE}); @odata.nextLink follows while more records match.`,
            { type: 'integer', minimum: 0 },
          ),
          option(
            '$skip',
            `Records to leave out before the first one, at most ${RESO_MAX_SKIP} (more is a 400): to read further, follow @odata.nextLink, which pages on at any depth.`,
            { type: 'integer', minimum: 0, maximum: RESO_MAX_SKIP },
          ),
          option('$count', 'true: the answer carries @odata.count, how many records match.', { type: 'boolean' }),
          option('$expand', 'On Property: Media (hero photo first), ListAgent, ListOffice, OpenHouse (soonest first).'),
          option('$skiptoken', 'Set by @odata.nextLink; send it back as it is.'),
        ],
        responses: {
          200: { description: 'A page of records, or one record by key', content: odata('ResoCollection') },
          404: odataError('No such resource, or no public record with that key'),
          410: odataError('EntityEvent: the checkpoint in $filter is older than the oldest event kept; replicate from scratch'),
          ...ERRORS,
        },
      },
    },
  };
}
