import { SaxesParser } from 'saxes';

/**
 * A small OData client for the tests, written from the OData and RESO documents and sharing no
 * code with the service: it reads $metadata with an XML parser, asks for collections and follows
 * @odata.nextLink to the end.
 */

export interface Property {
  name: string;
  type: string;
  maxLength?: number;
  precision?: number;
  scale?: number;
  /** The `RESO.OData.Metadata.LookupName` annotation: the Lookup resource's name for the field's values. */
  lookupName?: string;
}

export interface EntityType {
  name: string;
  key: string;
  properties: Property[];
  navigation: string[];
}

export interface Metadata {
  entityTypes: Map<string, EntityType>;
  /** Enum type full name (namespace.Name) to its members. */
  enums: Map<string, string[]>;
  entitySets: string[];
}

export function readMetadata(xml: string): Metadata {
  const parser = new SaxesParser({ xmlns: false });
  const entityTypes = new Map<string, EntityType>();
  const enums = new Map<string, string[]>();
  const entitySets: string[] = [];
  let namespace = '';
  let entity: EntityType | null = null;
  let enumMembers: string[] | null = null;
  let inKey = false;
  let property: Property | null = null;
  const numberOf = (text: string | undefined) => (text === undefined ? undefined : Number(text));
  parser.on('opentag', (tag) => {
    const a = tag.attributes as Record<string, string>;
    switch (tag.name) {
      case 'Schema':
        namespace = a.Namespace;
        break;
      case 'EntityType':
        entity = { name: a.Name, key: '', properties: [], navigation: [] };
        entityTypes.set(a.Name, entity);
        break;
      case 'Key':
        inKey = true;
        break;
      case 'PropertyRef':
        if (entity && inKey) entity.key = a.Name;
        break;
      case 'Property':
        property = { name: a.Name, type: a.Type, maxLength: numberOf(a.MaxLength), precision: numberOf(a.Precision), scale: numberOf(a.Scale) };
        entity?.properties.push(property);
        if (tag.isSelfClosing) property = null;
        break;
      case 'Annotation':
        if (property && a.Term === 'RESO.OData.Metadata.LookupName') property.lookupName = a.String;
        break;
      case 'NavigationProperty':
        entity?.navigation.push(a.Name);
        break;
      case 'EnumType':
        enumMembers = [];
        enums.set(`${namespace}.${a.Name}`, enumMembers);
        break;
      case 'Member':
        enumMembers?.push(a.Name);
        break;
      case 'EntitySet':
        entitySets.push(a.Name);
        break;
    }
  });
  parser.on('closetag', (tag) => {
    if (tag.name === 'EntityType') entity = null;
    if (tag.name === 'Key') inKey = false;
    if (tag.name === 'Property') property = null;
    if (tag.name === 'EnumType') enumMembers = null;
  });
  parser.write(xml).close();
  return { entityTypes, enums, entitySets };
}

export interface ODataAnswer {
  status: number;
  headers: Headers;
  body: any;
}

export async function odataGet(url: string, headers: Record<string, string> = {}): Promise<ODataAnswer> {
  const res = await fetch(url, { headers: { accept: 'application/json', ...headers } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Every record of a collection, following nextLinks; the pages' sizes too. */
export async function readAll(url: string, headers: Record<string, string> = {}): Promise<{ records: any[]; pages: number[] }> {
  const records: any[] = [];
  const pages: number[] = [];
  let next: string | undefined = url;
  while (next) {
    const answer = await odataGet(next, headers);
    if (answer.status !== 200) throw new Error(`${next} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    records.push(...answer.body.value);
    pages.push(answer.body.value.length);
    next = answer.body['@odata.nextLink'];
    if (pages.length > 10_000) throw new Error('nextLinks never end');
  }
  return { records, pages };
}

/** A literal of an OData type, as $filter writes it. */
export function literalOf(type: string, metadata: Metadata): string {
  switch (type) {
    case 'Edm.String':
      return "'zz'";
    case 'Edm.Decimal':
    case 'Edm.Double':
    case 'Edm.Int16':
    case 'Edm.Int32':
    case 'Edm.Int64':
      return '1';
    case 'Edm.Date':
      return '2024-01-01';
    case 'Edm.DateTimeOffset':
      return '2024-01-01T00:00:00Z';
    case 'Edm.Boolean':
      return 'true';
    default: {
      const members = metadata.enums.get(type);
      if (!members) throw new Error(`type ${type} is neither a primitive nor a declared enumeration`);
      return `${type}'${members[0]}'`;
    }
  }
}
