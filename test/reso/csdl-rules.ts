import { SaxesParser } from 'saxes';

/**
 * The rules RESO's own OData client and metadata validator (RESOStandards/reso-tools:
 * odata-client/src/csdl/parser.ts and its validateCsdl) apply to a $metadata document, restated
 * here from reading them (their code is not copied): the document a service sends must pass every
 * one for anything built on RESO's tools to start. Written with its own XML reader, sharing no
 * code with the service.
 *
 * 1. `edmx:Edmx/edmx:DataServices` holds exactly one `Schema`: the client's earlier releases read
 *    that element as one object, so with two it finds no namespace ("Schema namespace is missing
 *    or empty") and stops.
 * 2. The Schema's `Namespace` is not empty.
 * 3. There is exactly one `EntityContainer`.
 * 4. Every EntityType has a Key, and every PropertyRef of it names one of the type's Properties.
 * 5. Every Property's Type is an Edm primitive the validator knows, or `Namespace.Name` of a type
 *    (EntityType, EnumType, ComplexType) the document declares: with one Schema every qualified
 *    reference must resolve in it, and a reference into its namespace that resolves to nothing is
 *    dangling.
 * 6. Every NavigationProperty's type (`Collection(…)` unwrapped) is a declared EntityType.
 * 7. Every EntitySet's EntityType is declared; every NavigationPropertyBinding's Path names a
 *    navigation property of that type, its Target names an EntitySet, and that set's type is the
 *    navigation property's type.
 */

const EDM_PRIMITIVES = new Set(
  [
    'Binary',
    'Boolean',
    'Byte',
    'Date',
    'DateTimeOffset',
    'Decimal',
    'Double',
    'Duration',
    'Guid',
    'Int16',
    'Int32',
    'Int64',
    'SByte',
    'Single',
    'Stream',
    'String',
    'TimeOfDay',
    'Geography',
    'GeographyPoint',
    'GeographyLineString',
    'GeographyPolygon',
    'GeographyMultiPoint',
    'GeographyMultiLineString',
    'GeographyMultiPolygon',
    'GeographyCollection',
    'Geometry',
    'GeometryPoint',
    'GeometryLineString',
    'GeometryPolygon',
    'GeometryMultiPoint',
    'GeometryMultiLineString',
    'GeometryMultiPolygon',
    'GeometryCollection',
  ].map((t) => `Edm.${t}`),
);

interface Element {
  name: string;
  attributes: Record<string, string>;
  children: Element[];
}

function tree(xml: string): Element {
  const parser = new SaxesParser({ xmlns: false });
  const root: Element = { name: '#document', attributes: {}, children: [] };
  const stack = [root];
  parser.on('opentag', (tag) => {
    const element = { name: tag.name, attributes: tag.attributes as Record<string, string>, children: [] };
    stack.at(-1)!.children.push(element);
    if (!tag.isSelfClosing) stack.push(element);
  });
  parser.on('closetag', (tag) => {
    if (!tag.isSelfClosing) stack.pop();
  });
  parser.write(xml).close();
  return root;
}

const childrenNamed = (e: Element, name: string) => e.children.filter((c) => c.name === name);
const unwrap = (type: string) => (type.startsWith('Collection(') && type.endsWith(')') ? type.slice(11, -1) : type);

/** Every rule the document breaks, as sentences (none: RESO's client reads it and its validator accepts it). */
export function csdlRuleBreaches(xml: string): string[] {
  const breaches: string[] = [];
  const edmx = childrenNamed(tree(xml), 'edmx:Edmx')[0];
  const services = edmx && childrenNamed(edmx, 'edmx:DataServices')[0];
  if (!services) return ['no edmx:Edmx/edmx:DataServices'];
  const schemas = childrenNamed(services, 'Schema');
  if (schemas.length !== 1) breaches.push(`rule 1: ${schemas.length} Schema elements, not one`);
  if (schemas.length === 0) return breaches;
  const namespace = schemas[0].attributes.Namespace ?? '';
  if (!namespace) breaches.push('rule 2: the Schema has no Namespace');
  const all = schemas.flatMap((s) => s.children.map((child) => ({ child, ns: s.attributes.Namespace ?? '' })));
  const declared = new Map(
    all.filter(({ child }) => ['EntityType', 'EnumType', 'ComplexType'].includes(child.name)).map(({ child, ns }) => [`${ns}.${child.attributes.Name}`, child]),
  );
  const namespaces = new Set(schemas.map((s) => s.attributes.Namespace ?? ''));
  const dangling = (type: string) => !declared.has(type) && (!type.includes('.') || namespaces.has(type.slice(0, type.lastIndexOf('.'))));
  const containers = all.filter(({ child }) => child.name === 'EntityContainer');
  if (containers.length !== 1) breaches.push(`rule 3: ${containers.length} EntityContainer elements, not one`);
  for (const [fullName, type] of declared) {
    if (type.name !== 'EntityType' && type.name !== 'ComplexType') continue;
    const properties = childrenNamed(type, 'Property');
    const names = new Set(properties.map((p) => p.attributes.Name));
    if (type.name === 'EntityType') {
      const refs = childrenNamed(type, 'Key').flatMap((k) => childrenNamed(k, 'PropertyRef'));
      if (refs.length === 0) breaches.push(`rule 4: ${fullName} has no Key`);
      for (const ref of refs)
        if (!names.has(ref.attributes.Name)) breaches.push(`rule 4: ${fullName} keys on ${ref.attributes.Name}, not one of its properties`);
    }
    for (const p of properties) {
      const t = unwrap(p.attributes.Type ?? '');
      if (!EDM_PRIMITIVES.has(t) && dangling(t))
        breaches.push(`rule 5: ${fullName}.${p.attributes.Name} has type ${p.attributes.Type}, neither Edm nor declared`);
    }
    for (const nav of childrenNamed(type, 'NavigationProperty')) {
      const t = unwrap(nav.attributes.Type ?? '');
      if (declared.get(t)?.name !== 'EntityType') breaches.push(`rule 6: ${fullName}.${nav.attributes.Name} navigates to ${t}, not a declared EntityType`);
    }
  }
  const sets = new Map(containers.flatMap(({ child }) => childrenNamed(child, 'EntitySet')).map((s) => [s.attributes.Name, s]));
  for (const [name, set] of sets) {
    const type = declared.get(set.attributes.EntityType ?? '');
    if (type?.name !== 'EntityType') {
      breaches.push(`rule 7: EntitySet ${name} is of ${set.attributes.EntityType}, not a declared EntityType`);
      continue;
    }
    for (const binding of childrenNamed(set, 'NavigationPropertyBinding')) {
      const nav = childrenNamed(type, 'NavigationProperty').find((n) => n.attributes.Name === binding.attributes.Path?.split('/').pop());
      const target = sets.get(binding.attributes.Target?.split('/').pop() ?? '');
      if (!nav) breaches.push(`rule 7: EntitySet ${name} binds ${binding.attributes.Path}, not a navigation property of its type`);
      if (!target) breaches.push(`rule 7: EntitySet ${name} binds to ${binding.attributes.Target}, not an EntitySet`);
      if (nav && target && unwrap(nav.attributes.Type) !== target.attributes.EntityType)
        breaches.push(`rule 7: EntitySet ${name}'s ${binding.attributes.Path} is ${nav.attributes.Type} but its target holds ${target.attributes.EntityType}`);
    }
  }
  return breaches;
}
