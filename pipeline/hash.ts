import { hash } from 'node:crypto';
import { canonicalJson, type Shape, shape } from './canonical-json.js';
import { addressSchema, listingAgentSchema, listingSchema, locationSchema, mediaItemSchema, priceSchema, rentSchema } from './listing-schema.js';

/** Bookkeeping that does not make a listing different: a re-sent, otherwise identical record is unchanged. */
const EXCLUDED: ReadonlySet<string> = new Set(['modTime', 'contentHash', 'hidden']);

/** The schemas a listing's schema names by $ref. */
const BY_ID: Readonly<Record<string, SchemaNode>> = Object.fromEntries(
  [priceSchema, rentSchema, addressSchema, locationSchema, mediaItemSchema, listingAgentSchema].map((schema) => [schema.$id, schema]),
);

/** As much of a JSON Schema as the shape of what it describes needs. */
interface SchemaNode {
  readonly [keyword: string]: unknown;
  oneOf?: readonly SchemaNode[];
  $ref?: string;
  type?: string | readonly string[];
  items?: SchemaNode;
  properties?: Readonly<Record<string, SchemaNode>>;
}

/**
 * The Shape of the objects a schema describes (through nullable wrappers, references and array
 * items), with its keys but the excluded; undefined where they have no fixed keys (features, text
 * by locale) or are no objects.
 */
function shapeOfSchema(schema: SchemaNode, excluded: ReadonlySet<string> = new Set()): Shape | undefined {
  if (schema.oneOf) {
    const shapes = schema.oneOf.map((branch) => shapeOfSchema(branch)).filter((s) => s !== undefined);
    return shapes.length === 1 ? shapes[0] : undefined;
  }
  if (schema.$ref) return shapeOfSchema(BY_ID[schema.$ref]);
  if (schema.items) return shapeOfSchema(schema.items);
  if (!schema.properties) return undefined;
  const keys = Object.keys(schema.properties).filter((key) => !excluded.has(key));
  const children: Record<string, Shape> = {};
  for (const key of keys) {
    const child = shapeOfSchema(schema.properties[key]);
    if (child) children[key] = child;
  }
  return shape(keys, children);
}

/** A canonical listing's content and what it holds, from its schema, so its serialisation sorts nothing. */
const LISTING = shapeOfSchema(listingSchema, EXCLUDED);

/**
 * sha256 (hex) of the canonical content: JSON with keys in sorted order at every level, modTime and
 * bookkeeping left out, so the same content always gives the same digest whatever order its
 * objects hold their keys in (a record read back from the database included).
 */
export function contentHash(listing: object): string {
  return hash('sha256', canonicalJson(listing, LISTING, EXCLUDED), 'hex');
}
