/**
 * The RESO Data Dictionary 2.0 enumerations the RESO surface declares, as OData EnumTypes in the
 * one namespace of its metadata, org.reso.metadata (docs/reso.md, Metadata), with every member the
 * Data Dictionary defines (the service
 * itself sends only some of them). Members are the Data Dictionary's legacy OData values
 * (SimpleIdentifiers: `ActiveUnderContract` for "Active Under Contract").
 */
export const ENUM_NAMESPACE = 'org.reso.metadata';
/**
 * The namespace the enumerations had in a Schema of their own, before RESO's client was found to
 * read one Schema only: `$filter` still takes members qualified by it.
 */
export const FORMER_ENUM_NAMESPACE = 'org.reso.metadata.enums';

export const ENUMS = {
  StandardStatus: ['Active', 'ActiveUnderContract', 'Canceled', 'Closed', 'ComingSoon', 'Delete', 'Expired', 'Hold', 'Incomplete', 'Pending', 'Withdrawn'],
  PropertyType: [
    'BusinessOpportunity',
    'CommercialLease',
    'CommercialSale',
    'Farm',
    'Land',
    'ManufacturedInPark',
    'Residential',
    'ResidentialIncome',
    'ResidentialLease',
  ],
  AreaUnits: ['SquareFeet', 'SquareMeters'],
  LotSizeUnits: ['Acres', 'SquareFeet', 'SquareMeters'],
  FeeFrequency: ['Annually', 'BiMonthly', 'BiWeekly', 'Daily', 'Monthly', 'OneTime', 'Quarterly', 'Seasonal', 'SemiAnnually', 'SemiMonthly', 'Weekly'],
  MediaCategory: ['AgentPhoto', 'BrandedVirtualTour', 'Document', 'FloorPlan', 'OfficeLogo', 'OfficePhoto', 'Photo', 'UnbrandedVirtualTour', 'Video'],
} as const satisfies Record<string, readonly string[]>;

export type EnumName = keyof typeof ENUMS;

/** A member as a client may spell it (`ActiveUnderContract`, `Active Under Contract`, any case) to its declared name; null when it is none. */
export function enumMember(type: EnumName, value: string): string | null {
  const key = value.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  return (ENUMS[type] as readonly string[]).find((member) => member.toLowerCase() === key) ?? null;
}
