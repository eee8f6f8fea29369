import { type RequestHandler, Router } from 'express';
import { createResoReads } from '../../db/reso-reads.js';
import { RESOURCES } from '../../db/reso-resources.js';
import { ODataSyntaxError } from '../../lib/odata-filter.js';
import { metadataXml } from '../reso/metadata.js';
import {
  checkMetadataFormat,
  checkVersion,
  collection,
  jsonOnly,
  odataError,
  odataErrors,
  option,
  parseExpand,
  parseKeyPath,
  parseSelect,
  RESO_DEFAULT_PAGE,
  RESO_MAX_EXPANDED_PAGE,
  RESO_MAX_PAGE,
  RESO_MAX_SKIP,
  RESO_ROOT,
  resourceNamed,
  sendJson,
} from '../reso/odata-request.js';
import type { RouteDeps } from '../route-deps.js';
import { perApp, type RouteSpec, routerOf } from '../route-registry.js';

const odataContent = (name: string) => ({ 'application/json;odata.metadata=minimal': { schema: { $ref: `#/components/schemas/${name}` } } });
const odataAnswer = (description: string) => ({ description, content: odataContent('ResoError') });
const queryOption = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});

const ERRORS = {
  400: odataAnswer(
    `A query it cannot run: the message names the option and the part it could not read. Also an OData-Version it does not speak, and a $skip over ${RESO_MAX_SKIP} (follow @odata.nextLink instead).`,
  ),
  406: odataAnswer(
    'An Accept header or $format the service cannot meet: data requests answer application/json only (media type parameters such as odata.metadata are not held against it), $metadata application/xml only',
  ),
  429: odataAnswer('Too many requests from this address this minute (RESO_RATE_LIMIT); Retry-After says when to come back'),
  431: odataAnswer('The URL and headers are longer than the 16 KB the service reads (a $filter of thousands of values): split the request'),
  503: odataAnswer(
    'Database unavailable; the read did not finish within DB_READ_TIMEOUT_MS (code ServiceUnavailable); or too many costly queries are running at once (Retry-After says when to come back)',
  ),
};

const resoReadsOf = perApp(({ readDb, config }) => createResoReads(readDb, { changeLogDays: config.changeLogDays }));

/** The RESO Web API's routes (docs/reso.md has the fields, the mapping and examples). */
export const resoRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: RESO_ROOT,
    operationId: 'getResoServiceDocument',
    tag: 'reso',
    auth: 'none',
    summary: 'RESO Web API service document: the resources Property, Member, Office, Media, OpenHouse, EntityEvent and Lookup',
    description: 'The OData service root. No key is needed; answers carry OData-Version: 4.0. Limited per client address per minute (RESO_RATE_LIMIT, 600).',
    responses: { 200: { description: 'The resources', content: odataContent('ResoServiceDocument') }, ...ERRORS },
    handle: ({ links }) => [
      jsonOnly,
      (req, res) => {
        const value = Object.keys(RESOURCES).map((name) => ({ name, kind: 'EntitySet', url: name }));
        sendJson(res, JSON.stringify({ '@odata.context': `${links(req, RESO_ROOT)}/$metadata`, value }));
      },
    ],
  },
  {
    method: 'get',
    path: `${RESO_ROOT}/$metadata`,
    operationId: 'getResoMetadata',
    tag: 'reso',
    auth: 'none',
    summary:
      'RESO Web API metadata (CSDL XML): every field with its RESO Data Dictionary name and type; lookup fields are Edm.String annotated with their LookupName',
    description:
      'CSDL XML only: $format=json or an Accept without application/xml (or text/xml, */*) is a 406 in the OData error form; JSON CSDL is not served.',
    parameters: [queryOption('$format', 'xml (or application/xml); anything else is a 406.')],
    responses: { 200: { description: 'EDMX 4.0', content: { 'application/xml': { schema: { type: 'string' } } } }, ...ERRORS },
    handle: () => {
      let metadata: string | undefined;
      return (req, res) => {
        checkMetadataFormat(req);
        metadata ??= metadataXml();
        res.type('application/xml').send(metadata);
      };
    },
  },
  {
    method: 'get',
    path: `${RESO_ROOT}/{resourcePath}`,
    operationId: 'getResoRecords',
    tag: 'reso',
    auth: 'none',
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
      queryOption(
        '$filter',
        "Comparisons (eq, ne, gt, ge, lt, le), in, and, or, not and parentheses over the fields $metadata declares, and the functions now(), contains, startswith, endswith, tolower, toupper (text fields), year, month, day, date (dates and timestamps), e.g. `ListPrice ge 500000 and StandardStatus eq 'Active Under Contract'` or `contains(tolower(City),'rich') and ModificationTimestamp lt now()`. A number out of range (1e999999) is a 400 naming it.",
      ),
      queryOption('$select', 'Fields to answer with, separated by commas.'),
      queryOption('$orderby', 'Fields, each optionally followed by asc or desc, separated by commas; ties go by the key. Missing values sort last.'),
      queryOption(
        '$top',
        `The page size (at most ${RESO_MAX_PAGE}; a larger one is served in pages of ${RESO_MAX_PAGE}); @odata.nextLink follows while more records match.`,
        { type: 'integer', minimum: 0 },
      ),
      queryOption(
        '$skip',
        `Records to leave out before the first one, at most ${RESO_MAX_SKIP} (more is a 400): to read further, follow @odata.nextLink, which pages on at any depth.`,
        { type: 'integer', minimum: 0, maximum: RESO_MAX_SKIP },
      ),
      queryOption('$count', 'true: the answer carries @odata.count, how many records match.', { type: 'boolean' }),
      queryOption('$expand', 'On Property: Media (hero photo first), ListAgent, ListOffice, OpenHouse (soonest first).'),
      queryOption('$skiptoken', 'Set by @odata.nextLink; send it back as it is.'),
    ],
    responses: {
      200: { description: 'A page of records, or one record by key', content: odataContent('ResoCollection') },
      404: odataAnswer('No such resource, or no public record with that key'),
      410: odataAnswer('EntityEvent: the checkpoint in $filter is older than the oldest event kept; replicate from scratch'),
      ...ERRORS,
    },
    handle: (deps) => [jsonOnly, resoRecords(deps)],
  },
];

/** A collection, or one record by key (`Property('OFF1%2FL1')`), with the query options each takes. */
function resoRecords(deps: RouteDeps): RequestHandler {
  const { links } = deps;
  return async (req, res) => {
    const reads = resoReadsOf(deps);
    const path = String(req.params.resourcePath);
    const resource = resourceNamed(path);
    if (resource) {
      await collection(req, res, reads, links, resource);
      return;
    }
    const keyed = parseKeyPath(path);
    const byKey = keyed && resourceNamed(keyed.resource);
    if (!keyed || !byKey) throw odataError(404, 'NotFound', `no resource ${path.slice(0, 80)} (the service has ${Object.keys(RESOURCES).join(', ')})`);
    for (const name of Object.keys(req.query)) {
      if (name !== '$select' && name !== '$expand' && name !== '$format' && name.startsWith('$'))
        throw new ODataSyntaxError(name, 'is not a query option of a single record');
    }
    const json = await reads.byKey(byKey, keyed.key, parseSelect(byKey, option(req, '$select')), parseExpand(byKey, option(req, '$expand')));
    if (!json) throw odataError(404, 'NotFound', `no ${byKey.name} with ${byKey.key} '${keyed.key.slice(0, 200)}'`);
    const context = `"@odata.context":${JSON.stringify(`${links(req, RESO_ROOT)}/$metadata#${byKey.name}/$entity`)}`;
    sendJson(res, json.length > 2 ? `{${context},${json.slice(1)}` : `{${context}}`);
  };
}

/**
 * The RESO Web API (OData 4.0) over the public listings, their agents, offices and media:
 * service document, $metadata, collections with $filter, $select, $orderby, $top, $skip, $count
 * and $expand, and fetch by key. No key needed; a per-address rate limit applies. Everything
 * under its root is limited, checked for its OData-Version, answered 404 and errors in OData's form.
 */
export function resoRouter(deps: RouteDeps): Router {
  const router = Router();
  const limit = deps.limit('RESO Web API', deps.config.resoRateLimit, {
    windowMs: 60_000,
    refuse: (res, message) => res.set('OData-Version', '4.0').json({ error: { code: 'TooManyRequests', message } }),
  });
  router.use(RESO_ROOT, limit, checkVersion);
  router.use(routerOf(resoRoutes, deps));
  router.use(RESO_ROOT, (req) => {
    throw odataError(404, 'NotFound', `no route for ${req.method} ${req.path}`);
  });
  router.use(RESO_ROOT, odataErrors);
  return router;
}
