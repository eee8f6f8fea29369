import type { Address } from '../pipeline/types.js';
/**
 * SQL of the listing search columns (docs/reads.md): each generated from the stored record and its
 * public patch, so a search matches, sorts and places a listing only by what the public may see of
 * it (a withheld price is no price, a withheld street is not searchable, a withheld address is
 * placed at its locality).
 */

/** A top-level field as the public sees it: the patch's when it has one (even null), else the record's. */
export const publicField = (name: string) => `coalesce(public_patch->'${name}', data->'${name}')`;

/** A JSON number at `path` as numeric; null for anything else (a feed's text never breaks a write). */
export const numberAt = (json: string) => `CASE WHEN jsonb_typeof(${json}) = 'number' THEN (${json})::text::numeric END`;

/**
 * The public amount a price filter and sort compare: a sold listing's sold price, a rent listing's
 * weekly rent (monthly x 12 / 52, yearly / 52), else the sale price. Null when the agent withholds it
 * (display no or a range only): such a listing matches no price bound and sorts after the priced.
 */
export const PUBLIC_PRICE = `CASE
    WHEN status = 'sold' AND data->'sold'->'price' IS NOT NULL THEN ${numberAt(`${publicField('sold')}->'price'->'amount'`)}
    WHEN data->>'saleMode' = 'rent' THEN
      CASE ${publicField('rent')}->>'period'
        WHEN 'month' THEN round(${numberAt(`${publicField('rent')}->'amount'`)} * 12 / 52, 2)
        WHEN 'year' THEN round(${numberAt(`${publicField('rent')}->'amount'`)} / 52, 2)
        ELSE ${numberAt(`${publicField('rent')}->'amount'`)} END
    ELSE ${numberAt(`${publicField('price')}->'amount'`)} END`;

/** Garages, carports and open spaces added up; null when the record gives none of them. */
const parking = ['garages', 'carports', 'openSpaces'].map((f) => numberAt(`data->'features'->'${f}'`));
export const CAR_SPACES = `CASE WHEN ${parking.map((p) => `${p} IS NOT NULL`).join(' OR ')} THEN ${parking.map((p) => `coalesce(${p}, 0)`).join(' + ')} END`;

/** The public location as a point (x longitude, y latitude). */
export const GEO_POINT = `CASE WHEN ${publicField('location')}->>'lat' IS NOT NULL
    THEN point((${publicField('location')}->>'lng')::float8, (${publicField('location')}->>'lat')::float8) END`;

/**
 * Full-text configurations by the language of the listing's text (its first locale's language: en-AU is English);
 * text in any other language is indexed word for word ('simple').
 */
export const TEXT_CONFIGS: Record<string, string> = {
  en: 'english',
  fr: 'french',
  de: 'german',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  nl: 'dutch',
  sv: 'swedish',
  da: 'danish',
  nb: 'norwegian',
  no: 'norwegian',
  fi: 'finnish',
  ru: 'russian',
  tr: 'turkish',
};

/**
 * The language of the record's text: its headline's (else description's) first locale, e.g. "fr" of
 * "fr-CA". Silent (the last argument): a headline that is null or not an object yields nothing
 * rather than an error, so no record can fail its write here.
 */
const firstLocale = (field: string) => `jsonb_path_query_first(data, '$.${field}.keyvalue().key', '{}', true) #>> '{}'`;
const textLanguage = `lower(split_part(coalesce(${firstLocale('headline')}, ${firstLocale('description')}), '-', 1))`;
const textConfig = `CASE ${textLanguage} ${Object.entries(TEXT_CONFIGS)
  .map(([lang, config]) => `WHEN '${lang}' THEN '${config}'::regconfig`)
  .join(' ')} ELSE 'simple'::regconfig END`;

/** The public address as words (text || text: concat_ws and jsonb_build_array are not immutable). */
const addressText = (['subNumber', 'streetNumber', 'street', 'locality', 'region', 'postcode'] satisfies (keyof Address)[])
  .map((part) => `coalesce(${publicField('address')}->>'${part}', '')`)
  .join(" || ' ' || ");

/**
 * What a keyword search matches: the headline (weight A), the public address and the agents'
 * names (B), the description (C), in the text's language.
 */
export const SEARCH_VECTOR = `setweight(jsonb_to_tsvector(${textConfig}, coalesce(data->'headline', '{}'::jsonb), '["string"]'), 'A')
    || setweight(to_tsvector(${textConfig}, ${addressText}), 'B')
    || setweight(jsonb_to_tsvector(${textConfig}, jsonb_path_query_array(coalesce(data->'agents', '[]'::jsonb), '$[*].name'), '["string"]'), 'B')
    || setweight(jsonb_to_tsvector(${textConfig}, coalesce(data->'description', '{}'::jsonb), '["string"]'), 'C')`;
