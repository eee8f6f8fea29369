import { PROPERTY_EXPANDS, RESOURCES, type ResoField } from '../../db/reso-resources.js';
import { METADATA_NAMESPACE } from '../../lib/reso-lookups.js';

/**
 * The one namespace of the metadata, as RESO's reference metadata names it: entity types and the
 * container in one Schema, which RESO's own client needs (docs/reso.md, Metadata).
 */
export const NAMESPACE = METADATA_NAMESPACE;

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

function propertyXml(field: ResoField): string {
  const t = field.type;
  const nullable = field.notNull ? ' Nullable="false"' : '';
  switch (t.edm) {
    case 'Edm.String': {
      const open = `<Property Name="${field.name}" Type="Edm.String"${t.maxLength ? ` MaxLength="${t.maxLength}"` : ''}${nullable}`;
      // A lookup field names the LookupName its values are listed under in the Lookup resource (Data Dictionary 2.0, 2.2).
      return t.lookup ? `${open}><Annotation Term="RESO.OData.Metadata.LookupName" String="${xmlText(t.lookup)}"/></Property>` : `${open}/>`;
    }
    case 'Edm.Decimal':
      return `<Property Name="${field.name}" Type="Edm.Decimal" Precision="${t.precision}" Scale="${t.scale}"${nullable}/>`;
    case 'Edm.DateTimeOffset':
      return `<Property Name="${field.name}" Type="Edm.DateTimeOffset" Precision="27"${nullable}/>`;
    default:
      return `<Property Name="${field.name}" Type="${t.edm}"${nullable}/>`;
  }
}

const NAVIGATION: Record<string, string> = {
  Media: `<NavigationProperty Name="Media" Type="Collection(${NAMESPACE}.Media)"/>`,
  ListAgent: `<NavigationProperty Name="ListAgent" Type="${NAMESPACE}.Member"/>`,
  ListOffice: `<NavigationProperty Name="ListOffice" Type="${NAMESPACE}.Office"/>`,
  OpenHouse: `<NavigationProperty Name="OpenHouse" Type="Collection(${NAMESPACE}.OpenHouse)"/>`,
};

/** The service's CSDL (XML): one Schema holding the resources and the entity container (no EnumType: lookups are strings). */
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
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">',
    '<edmx:DataServices>',
    `<Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="${NAMESPACE}">`,
    ...entityTypes,
    container,
    '</Schema>',
    '</edmx:DataServices>',
    '</edmx:Edmx>',
  ].join('\n');
}
