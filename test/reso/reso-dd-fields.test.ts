import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'chai';
import { distance } from 'fastest-levenshtein';
import { repoRoot } from '../helpers.js';
import { startTestService, type TestService } from '../service.js';
import { type Metadata, type Property, readMetadata } from './odata-client.js';

/** The Data Dictionary 2.0 rows of the fields served (test/fixtures/reso-dd-2.0/fields.json names its source). */
const FIXTURE = JSON.parse(readFileSync(resolve(repoRoot, 'test/fixtures/reso-dd-2.0/fields.json'), 'utf8')) as {
  source: { repository: string; path: string; commit: string };
  columns: string[];
  rows: string[][];
  standardNames: Record<string, string[]>;
};
type DdRow = Record<'ResourceName' | 'StandardName' | 'SimpleDataType' | 'SugMaxLength' | 'SugMaxPrecision' | 'LookupName' | 'LookupStatus', string>;
const DD: DdRow[] = FIXTURE.rows.map((row) => Object.fromEntries(FIXTURE.columns.map((c, i) => [c, row[i]])) as DdRow);

/** Local fields (no Data Dictionary row): docs/reso.md says which and why. */
const LOCAL_FIELDS = ['Property.CurrencyCode'];
/** Where a field's MaxLength differs from the Data Dictionary's suggested one (a SHOULD), and why (docs/reso.md). */
const LENGTH_EXCEPTIONS: Record<string, string> = {
  'Property.StateOrProvince': 'the DD suggests 2 (US and Canadian codes); Australian states are 3 letters and feeds may give names',
};

/**
 * How the Data Dictionary 2.0 maps its SimpleDataType to a Web API type (RESOStandards/transport,
 * proposals/data-dictionary.md, Data Type Mappings), in the one lookup style the service uses:
 * String List, Single is an Edm.String annotated with its LookupName. Each breach as a sentence.
 */
function breachesOf(field: string, p: Property, dd: DdRow): string[] {
  const out: string[] = [];
  const want = (what: string, got: unknown, expected: unknown) => {
    if (got !== expected) out.push(`${field}: ${what} is ${got}, the DD has ${expected}`);
  };
  const length = dd.SugMaxLength ? Number(dd.SugMaxLength) : undefined;
  switch (dd.SimpleDataType) {
    case 'String':
      want('type', p.type, 'Edm.String');
      want('LookupName', p.lookupName, undefined);
      if (length !== undefined) want('MaxLength', p.maxLength, length);
      break;
    case 'String List, Single':
      want('type', p.type, 'Edm.String');
      want('LookupName', p.lookupName, dd.LookupName);
      if (length !== undefined && !LENGTH_EXCEPTIONS[field]) want('MaxLength', p.maxLength, length);
      break;
    case 'Number':
      if (dd.SugMaxPrecision) {
        want('type', p.type, 'Edm.Decimal');
        want('Precision', p.precision, length);
        want('Scale', p.scale, Number(dd.SugMaxPrecision));
      } else if (!['Edm.Int16', 'Edm.Int32', 'Edm.Int64'].includes(p.type)) out.push(`${field}: type is ${p.type}, the DD has a whole Number`);
      break;
    case 'Date':
      want('type', p.type, 'Edm.Date');
      break;
    case 'Timestamp':
      want('type', p.type, 'Edm.DateTimeOffset');
      break;
    case 'Boolean':
      want('type', p.type, 'Edm.Boolean');
      break;
    default:
      out.push(`${field}: the DD type ${dd.SimpleDataType} is not one this test knows`);
  }
  return out;
}

/** The Data Dictionary's similar-name rule: a name within ceil(length / 4) - 1 edits of a standard one (5–8 letters: 1, 9–12: 2) is taken for a variant of it. */
const similarStandardNames = (resource: string, name: string): string[] =>
  FIXTURE.standardNames[resource].filter((standard) => {
    const d = distance(name.toLowerCase(), standard.toLowerCase());
    return d <= Math.ceil(standard.length / 4) - 1;
  });

describe('RESO Web API: $metadata types every field as Data Dictionary 2.0 does, with one lookup style', function () {
  this.timeout(60_000);
  let svc: TestService;
  let xml: string;
  let metadata: Metadata;
  before(async () => {
    svc = await startTestService({ database: 'pglite' });
    xml = await (await fetch(`${svc.url}/v1/reso/$metadata`, { headers: { accept: 'application/xml' } })).text();
    metadata = readMetadata(xml);
  });
  after(() => svc.close());

  it(`names its source: ${FIXTURE.source.repository} ${FIXTURE.source.path} at ${FIXTURE.source.commit.slice(0, 12)}`, () => {
    expect(FIXTURE.source.commit).to.match(/^[0-9a-f]{40}$/);
    expect(DD.length).to.be.greaterThan(70);
  });

  it('types every field it serves as its Data Dictionary row says, lookups as annotated Edm.String', () => {
    const breaches: string[] = [];
    const served: string[] = [];
    for (const entity of metadata.entityTypes.values()) {
      for (const p of entity.properties) {
        const field = `${entity.name}.${p.name}`;
        served.push(field);
        const dd = DD.find((r) => r.ResourceName === entity.name && r.StandardName === p.name);
        if (!dd) {
          if (!LOCAL_FIELDS.includes(field)) breaches.push(`${field}: no Data Dictionary row and not a declared local field`);
          continue;
        }
        breaches.push(...breachesOf(field, p, dd));
      }
    }
    expect(breaches).to.deep.equal([]);
    // The fixture holds the rows of the fields served, no more (so it shows what is compared).
    expect(DD.map((r) => `${r.ResourceName}.${r.StandardName}`).sort()).to.deep.equal(served.filter((f) => !LOCAL_FIELDS.includes(f)).sort());
  });

  it('uses one lookup style: no EnumType, no enumeration-typed property, and every lookup is listed by the Lookup resource', async () => {
    expect(metadata.enums.size).to.equal(0);
    expect(xml).not.to.contain('<EnumType');
    const lookupFields = [...metadata.entityTypes.values()].flatMap((e) => e.properties.filter((p) => p.lookupName).map((p) => p.lookupName!));
    for (const entity of metadata.entityTypes.values()) for (const p of entity.properties) expect(p.type, `${entity.name}.${p.name}`).to.match(/^Edm\./);
    expect(lookupFields).to.include.members(['StandardStatus', 'MlsStatus', 'PropertySubType', 'City', 'StateOrProvince', 'Country', 'ResourceName']);
    const lookup = metadata.entityTypes.get('Lookup')!;
    expect(lookup.key).to.equal('LookupKey');
    expect(lookup.properties.map((p) => `${p.name}:${p.type}`)).to.deep.equal([
      'LookupKey:Edm.String',
      'LookupName:Edm.String',
      'LookupValue:Edm.String',
      'StandardLookupValue:Edm.String',
      'LegacyODataValue:Edm.String',
      'ModificationTimestamp:Edm.DateTimeOffset',
    ]);
    expect(metadata.entitySets).to.include('Lookup');
  });

  it('names its local fields as the Data Dictionary says local fields are named: its conventions, no standard name or near variant of one', () => {
    for (const field of LOCAL_FIELDS) {
      const [resource, name] = field.split('.');
      expect(name, field).to.match(/^[A-Z][A-Za-z0-9]*$/);
      expect(FIXTURE.standardNames[resource], field).not.to.include(name);
      expect(similarStandardNames(resource, name), `${field} reads as a variant of a standard field`).to.deep.equal([]);
    }
    // The rule catches a variant: "ListPrise" is one edit from ListPrice.
    expect(similarStandardNames('Property', 'ListPrise')).to.deep.equal(['ListPrice']);
  });
});
