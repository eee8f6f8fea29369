import { PROPERTY_EXPANDS, RESOURCES, type ResoField } from '../../db/reso-resources.js';
import { ENUM_NAMESPACE, ENUMS } from '../../lib/reso-enums.js';

/**
 * The one namespace of the metadata, as RESO's reference metadata names it: entity types,
 * enumerations and the container in one Schema, which RESO's own client needs (docs/reso.md,
 * Metadata).
 */
export const NAMESPACE = 'org.reso.metadata';
if (ENUM_NAMESPACE !== NAMESPACE) throw new Error('the enumerations belong to the one Schema of the metadata');

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

function propertyXml(field: ResoField): string {
  const t = field.type;
  switch (t.edm) {
    case 'Edm.String':
      return `<Property Name="${field.name}" Type="Edm.String"${t.maxLength ? ` MaxLength="${t.maxLength}"` : ''}/>`;
    case 'Edm.Decimal':
      return `<Property Name="${field.name}" Type="Edm.Decimal" Precision="${t.precision}" Scale="${t.scale}"/>`;
    case 'Edm.DateTimeOffset':
      return `<Property Name="${field.name}" Type="Edm.DateTimeOffset" Precision="27"/>`;
    case 'enum':
      return `<Property Name="${field.name}" Type="${ENUM_NAMESPACE}.${t.enum}"/>`;
    default:
      return `<Property Name="${field.name}" Type="${t.edm}"/>`;
  }
}

const NAVIGATION: Record<string, string> = {
  Media: `<NavigationProperty Name="Media" Type="Collection(${NAMESPACE}.Media)"/>`,
  ListAgent: `<NavigationProperty Name="ListAgent" Type="${NAMESPACE}.Member"/>`,
  ListOffice: `<NavigationProperty Name="ListOffice" Type="${NAMESPACE}.Office"/>`,
  OpenHouse: `<NavigationProperty Name="OpenHouse" Type="Collection(${NAMESPACE}.OpenHouse)"/>`,
};

/** The service's CSDL (XML): one Schema holding the resources, their enumerations and the entity container. */
export function metadataXml(): string {
  const entityTypes = Object.values(RESOURCES).map((resource) => {
    const navigation = resource.name === 'Property' ? PROPERTY_EXPANDS.map((name) => NAVIGATION[name]) : [];
    return [
      `<EntityType Name="${resource.name}">`,
      `<Key><PropertyRef Name="${resource.key}"/></Key>`,
      ...resource.fields.map(propertyXml),
      ...navigation,
      '</EntityType>',
    ].join('');
  });
  const container = [
    '<EntityContainer Name="Default">',
    ...Object.values(RESOURCES).map((resource) => {
      const bindings =
        resource.name === 'Property'
          ? '<NavigationPropertyBinding Path="Media" Target="Media"/><NavigationPropertyBinding Path="ListAgent" Target="Member"/><NavigationPropertyBinding Path="ListOffice" Target="Office"/><NavigationPropertyBinding Path="OpenHouse" Target="OpenHouse"/>'
          : '';
      return `<EntitySet Name="${resource.name}" EntityType="${NAMESPACE}.${resource.name}">${bindings}</EntitySet>`;
    }),
    '</EntityContainer>',
  ].join('');
  const enums = Object.entries(ENUMS).map(
    ([name, members]) =>
      `<EnumType Name="${xmlText(name)}">${members.map((member, i) => `<Member Name="${xmlText(member)}" Value="${i}"/>`).join('')}</EnumType>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">',
    '<edmx:DataServices>',
    `<Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="${NAMESPACE}">`,
    ...entityTypes,
    ...enums,
    container,
    '</Schema>',
    '</edmx:DataServices>',
    '</edmx:Edmx>',
  ].join('\n');
}
