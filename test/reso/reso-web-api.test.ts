import { expect } from 'chai';
import { resoRecord } from '../formats/documents.js';
import { feed } from '../helpers.js';
import { AUD, activeKey, admin, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';
import { literalOf, type Metadata, odataGet, readAll, readMetadata } from './odata-client.js';

const ROAD = '<address><streetNumber>39</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address>';
const HIDDEN_ROAD = ROAD.replace('<address>', '<address display="no">');
const AGENT = '<listingAgent id="1"><name>Ann Smith</name><email>ann@agency.example</email></listingAgent>';
const residential = (id: string, inner: string, status = 'current', mod = '2024-03-01-10:00:00') =>
  `<residential modTime="${mod}" status="${status}"><agentID>OFF1</agentID><uniqueID>${id}</uniqueID>${AGENT}<headline>Home ${id}</headline><description>Nice ${id}.</description>${inner}</residential>`;

/** The fields of a RESO record fed in (besides resoRecord's own), each read back as it was fed. */
const FED = {
  ListOfficeKey: 'OFF2',
  BedroomsTotal: 2,
  BathroomsTotalInteger: 1,
  GarageSpaces: 1,
  LivingArea: 120.5,
  LivingAreaUnits: 'Square Meters',
  StreetNumber: '34',
  StreetName: 'Example St',
  UnitNumber: '12',
  Latitude: -33.8135571,
  Longitude: 151.003407,
  ListingContractDate: '2024-04-20',
  YearBuilt: 1999,
  NewConstructionYN: false,
};

/** The listings every test reads: on the market, withheld price and street, sold, rented, hidden, withdrawn. */
const LISTINGS = [
  residential(
    'P1',
    `<price>500000</price>${ROAD}<features><bedrooms>3</bedrooms><bathrooms>2</bathrooms><garages>1</garages></features>` +
      '<landDetails><area unit="squareMeter">600</area></landDetails><images><img id="m" url="https://cdn.example/p1-hero.jpg"/><img id="a" url="https://cdn.example/p1-a.jpg"/></images>' +
      '<objects><floorplan id="1" url="https://cdn.example/p1-plan.pdf"/></objects>' +
      // An open home to come, so OpenHouse has a record to filter and order.
      '<inspectionTimes><inspection>13-Dec-2030 9:00am to 9:30am</inspection></inspectionTimes>',
  ),
  residential('P2', `<price display="no">820000</price>${HIDDEN_ROAD}<features><bedrooms>4</bedrooms></features>`),
  residential(
    'P3',
    `<price>700000</price>${ROAD}<soldDetails><soldPrice display="yes">750000</soldPrice><soldDate>2024-02-01</soldDate></soldDetails>`,
    'sold',
  ),
  `<rental modTime="2024-03-01-10:00:00" status="current"><agentID>OFF1</agentID><uniqueID>R1</uniqueID>${AGENT}<headline>Flat</headline><rent period="week">650</rent>${ROAD}<features><bedrooms>1</bedrooms></features></rental>`,
  residential('H1', `<price>100</price>${ROAD}`),
  residential('W1', `<price>100</price>${ROAD}`, 'withdrawn'),
];

for (const database of ['pglite', 'postgres'] as const) {
  describe(`RESO Web API at /v1/reso: metadata, queries, paging, display choices (${database})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let root: string;
    let metadata: Metadata;
    before(async () => {
      svc = await startTestService({ database });
      root = `${svc.url}/v1/reso`;
      const key = await activeKey(svc.db, ['OFF1', 'OFF2']);
      expect((await pushFeed(svc.url, key, feed(...LISTINGS))).status).to.equal(200);
      const reso = await fetch(`${svc.url}/v1/feeds`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          xml: JSON.stringify({
            value: [resoRecord(FED)],
          }),
          format: 'reso',
          context: AUD,
        }),
      });
      expect(reso.status, await reso.clone().text()).to.equal(200);
      expect((await admin(svc.url, 'POST', '/v1/admin/listings/visibility', { officeId: 'OFF1', uniqueId: 'H1', hidden: true })).status).to.equal(200);
      const xml = await (await fetch(`${root}/$metadata`)).text();
      metadata = readMetadata(xml);
    });
    after(() => svc.close());

    it('serves the service document and $metadata with Property, Member, Office, Media, OpenHouse, EntityEvent and Lookup, lookups as annotated strings', async () => {
      const doc = await odataGet(root);
      expect(doc.status).to.equal(200);
      expect(doc.headers.get('odata-version')).to.equal('4.0');
      expect(doc.headers.get('content-type')).to.match(/^application\/json;\s*odata\.metadata=minimal/);
      expect(doc.body.value.map((s: { name: string }) => s.name)).to.have.members([
        'Property',
        'Member',
        'Office',
        'Media',
        'OpenHouse',
        'EntityEvent',
        'Lookup',
      ]);
      const meta = await fetch(`${root}/$metadata`);
      expect(meta.headers.get('content-type')).to.match(/^application\/xml/);
      expect(meta.headers.get('odata-version')).to.equal('4.0');
      expect(metadata.entitySets).to.have.members(['Property', 'Member', 'Office', 'Media', 'OpenHouse', 'EntityEvent', 'Lookup']);
      const event = metadata.entityTypes.get('EntityEvent')!;
      expect(event.key).to.equal('EntityEventSequence');
      expect(Object.fromEntries(event.properties.map((p) => [p.name, p.type]))).to.deep.equal({
        EntityEventSequence: 'Edm.Int64',
        ResourceName: 'Edm.String',
        ResourceRecordKey: 'Edm.String',
        ResourceRecordUrl: 'Edm.String',
      });
      const property = metadata.entityTypes.get('Property')!;
      expect(property.key).to.equal('ListingKey');
      expect(property.navigation).to.have.members(['Media', 'ListAgent', 'ListOffice', 'OpenHouse']);
      const types = Object.fromEntries(property.properties.map((p) => [p.name, p.type]));
      expect(types).to.include({
        ListPrice: 'Edm.Decimal',
        StandardStatus: 'Edm.String',
        PropertyType: 'Edm.String',
        Latitude: 'Edm.Decimal',
        ModificationTimestamp: 'Edm.DateTimeOffset',
        ListingContractDate: 'Edm.Date',
        BedroomsTotal: 'Edm.Int32',
        NewConstructionYN: 'Edm.Boolean',
      });
      expect(property.properties.find((p) => p.name === 'StandardStatus')!.lookupName).to.equal('StandardStatus');
      expect(metadata.enums.size, 'no EnumType: one lookup style').to.equal(0);
    });

    it('filters, orders and selects on every field every resource declares', async () => {
      for (const entity of metadata.entityTypes.values()) {
        for (const p of entity.properties) {
          const literal = literalOf(p.type, metadata);
          const url = `${root}/${entity.name}?$filter=${encodeURIComponent(`${p.name} ne ${literal} or ${p.name} eq null`)}&$orderby=${p.name} desc&$select=${p.name},${entity.key}&$top=50`;
          const answer = await odataGet(url);
          expect(answer.status, `${url}: ${JSON.stringify(answer.body)}`).to.equal(200);
          expect(answer.body.value.length, url).to.be.greaterThan(0);
          for (const record of answer.body.value) expect(Object.keys(record).sort(), url).to.deep.equal([...new Set([p.name, entity.key])].sort());
          // Descending with missing values last.
          const values = answer.body.value.map((r: Record<string, unknown>) => r[p.name]);
          const present = values.filter((v: unknown) => v !== null);
          expect(values.slice(0, present.length), `${url}: nulls last`).to.deep.equal(present);
          const sorted = [...present].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
          if (p.type !== 'Edm.String') expect(present, `${url}: descending`).to.deep.equal(sorted);
        }
      }
    });

    it('answers only public listings, with the agent display choices honoured', async () => {
      const { records } = await readAll(`${root}/Property`);
      expect(records.map((r) => r.ListingKey).sort()).to.deep.equal(['OFF1/P1', 'OFF1/P2', 'OFF1/P3', 'OFF1/R1', 'OFF2/a1']);
      const byKey = Object.fromEntries(records.map((r) => [r.ListingKey, r]));
      expect(byKey['OFF1/P2']).to.include({ ListPrice: null, StreetName: null, StreetNumber: null, InternetAddressDisplayYN: false, City: 'Richmond' });
      expect(byKey['OFF1/P2'].UnparsedAddress).not.to.match(/Main/);
      expect(JSON.stringify(byKey['OFF1/P2'])).not.to.match(/820000|Main Road/);
      expect(byKey['OFF1/P1']).to.include({
        ListingId: 'P1',
        StandardStatus: 'Active',
        PropertyType: 'Residential',
        ListPrice: 500000,
        BedroomsTotal: 3,
        BathroomsTotalInteger: 2,
        GarageSpaces: 1,
        LotSizeArea: 600,
        LotSizeUnits: 'Square Meters',
        StreetNumber: '39',
        StreetName: 'Main Road',
        City: 'Richmond',
        StateOrProvince: 'VIC',
        PostalCode: '3121',
        Country: 'AU',
        CurrencyCode: 'AUD',
        PhotosCount: 2,
        ListOfficeKey: 'OFF1',
        ListAgentFullName: 'Ann Smith',
        PublicRemarks: 'Nice P1.',
      });
      expect(byKey['OFF1/P1'].ListAgentKey).to.match(/^[0-9a-f]{16}$/);
      expect(byKey['OFF1/P1'].ModificationTimestamp).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      expect(byKey['OFF1/P3']).to.include({ StandardStatus: 'Closed', ClosePrice: 750000, CloseDate: '2024-02-01' });
      expect(byKey['OFF1/R1']).to.include({ PropertyType: 'Residential Lease', LeaseAmount: 650, LeaseAmountFrequency: 'Weekly', ListPrice: 650 });
      for (const hidden of ['OFF1/H1', 'OFF1/W1']) {
        const one = await odataGet(`${root}/Property('${encodeURIComponent(hidden)}')`);
        expect(one.status, hidden).to.equal(404);
        expect(one.body.error).to.include({ code: 'NotFound' });
      }
      const withheld = await odataGet(`${root}/Property?$filter=${encodeURIComponent('ListPrice ge 800000 and ListPrice le 900000')}`);
      expect(withheld.body.value, 'a withheld price matches no price filter').to.deep.equal([]);
    });

    it('gives a listing fed as RESO back with the values it was fed', async () => {
      const one = await odataGet(`${root}/Property('${encodeURIComponent('OFF2/a1')}')`);
      expect(one.status).to.equal(200);
      expect(one.body['@odata.context']).to.match(/\$metadata#Property\/\$entity$/);
      const fed = resoRecord(FED);
      expect(one.body).to.include({
        ...FED,
        ListingId: fed.ListingKey,
        ...Object.fromEntries(
          ['StandardStatus', 'PropertyType', 'PropertySubType', 'ListPrice', 'City', 'StateOrProvince', 'PostalCode', 'Country', 'PublicRemarks'].map((f) => [
            f,
            fed[f],
          ]),
        ),
      });
    });

    it('runs comparisons, in, not and parentheses as OData defines them (null is equal only to null)', async () => {
      const keys = async (filter: string) => {
        const answer = await odataGet(`${root}/Property?$filter=${encodeURIComponent(filter)}&$select=ListingKey&$orderby=ListingKey`);
        expect(answer.status, `${filter}: ${JSON.stringify(answer.body)}`).to.equal(200);
        return answer.body.value.map((r: { ListingKey: string }) => r.ListingKey);
      };
      expect(await keys('BedroomsTotal ge 3')).to.deep.equal(['OFF1/P1', 'OFF1/P2']);
      expect(await keys('BedroomsTotal ne 3')).to.deep.equal(['OFF1/P2', 'OFF1/P3', 'OFF1/R1', 'OFF2/a1']);
      expect(await keys('not (BedroomsTotal gt 1)')).to.deep.equal(['OFF1/P3', 'OFF1/R1']);
      expect(await keys("StandardStatus eq org.reso.metadata.StandardStatus'Closed'")).to.deep.equal(['OFF1/P3']);
      expect(await keys("StandardStatus eq org.reso.metadata.enums.StandardStatus'Active'")).to.deep.equal(['OFF1/P1', 'OFF1/P2', 'OFF1/R1', 'OFF2/a1']);
      expect(await keys("PropertyType in ('ResidentialLease', 'Residential Lease')")).to.deep.equal(['OFF1/R1']);
      expect(await keys("City eq 'Richmond' and (ListPrice lt 600000 or ListPrice eq null)")).to.deep.equal(['OFF1/P1', 'OFF1/P2', 'OFF1/R1']);
      expect(await keys('CloseDate ge 2024-01-01 and CloseDate lt 2024-03-01')).to.deep.equal(['OFF1/P3']);
      expect(await keys('ModificationTimestamp gt 2000-01-01T00:00:00Z and ModificationTimestamp lt 2999-01-01T00:00:00.000+10:00')).to.have.length(5);
      expect(await keys('NewConstructionYN eq false')).to.deep.equal(['OFF2/a1']);
      expect(await keys("City eq 'richmond'"), 'strings compare case-sensitively').to.deep.equal([]);
    });

    it('lists every lookup value it serves in the Lookup resource, and takes a lookup value in $filter as its display name or its legacy OData value', async () => {
      const { records: lookups } = await readAll(`${root}/Lookup?$top=100`);
      const listed = new Set(lookups.map((l) => `${l.LookupName}:${l.LookupValue}`));
      for (const l of lookups) expect(l.LookupKey).to.equal(`${l.LookupName}:${l.LookupValue}`);
      expect(lookups.find((l) => l.LookupKey === 'StandardStatus:Active Under Contract')).to.include({
        StandardLookupValue: 'Active Under Contract',
        LegacyODataValue: 'ActiveUnderContract',
      });
      expect(lookups.find((l) => l.LookupKey === 'Country:AU')).to.include({ StandardLookupValue: 'AU', LegacyODataValue: 'AU' });
      expect(lookups.find((l) => l.LookupKey === 'City:Richmond')).to.include({ StandardLookupValue: null, LegacyODataValue: null });
      // Every value of every lookup field of every resource is a LookupValue of its LookupName.
      for (const entity of metadata.entityTypes.values()) {
        const lookupFields = entity.properties.filter((p) => p.lookupName);
        if (lookupFields.length === 0) continue;
        const { records } = await readAll(`${root}/${entity.name}?$select=${lookupFields.map((p) => p.name).join(',')}`);
        for (const record of records)
          for (const p of lookupFields)
            if (record[p.name] !== null) expect(listed.has(`${p.lookupName}:${record[p.name]}`), `${entity.name}.${p.name} = ${record[p.name]}`).to.equal(true);
      }
      const keys = async (filter: string) => {
        const answer = await odataGet(`${root}/Property?$filter=${encodeURIComponent(filter)}&$select=ListingKey&$orderby=ListingKey`);
        expect(answer.status, `${filter}: ${JSON.stringify(answer.body)}`).to.equal(200);
        return answer.body.value.map((r: { ListingKey: string }) => r.ListingKey);
      };
      for (const filter of [
        "PropertyType eq 'Residential Lease'",
        "PropertyType eq 'ResidentialLease'",
        "PropertyType eq org.reso.metadata.PropertyType'ResidentialLease'",
      ])
        expect(await keys(filter), filter).to.deep.equal(['OFF1/R1']);
      expect(await keys("City eq 'Richmond' and contains(City, 'ich')")).to.deep.equal(['OFF1/P1', 'OFF1/P2', 'OFF1/P3', 'OFF1/R1']);
      // Lookups replicate by ModificationTimestamp, and filter by LookupName.
      const cities = await odataGet(
        `${root}/Lookup?$filter=${encodeURIComponent("LookupName eq 'City' and ModificationTimestamp ge 2000-01-01T00:00:00Z")}&$count=true`,
      );
      expect(cities.status).to.equal(200);
      expect(cities.body.value.map((l: { LookupValue: string }) => l.LookupValue).sort()).to.deep.equal(
        [...new Set((await readAll(`${root}/Property?$select=City`)).records.map((r) => r.City).filter(Boolean))].sort(),
      );
      expect(cities.body['@odata.count']).to.equal(cities.body.value.length);
      const one = await odataGet(`${root}/Lookup('${encodeURIComponent('StandardStatus:Closed')}')`);
      expect(one.status).to.equal(200);
      expect(one.body).to.include({ LookupName: 'StandardStatus', LookupValue: 'Closed' });
    });

    it('runs now(), contains, startswith, endswith, tolower, toupper, year, month, day and date in $filter', async () => {
      const keys = async (filter: string) => {
        const answer = await odataGet(`${root}/Property?$filter=${encodeURIComponent(filter)}&$select=ListingKey&$orderby=ListingKey`);
        expect(answer.status, `${filter}: ${JSON.stringify(answer.body)}`).to.equal(200);
        return answer.body.value.map((r: { ListingKey: string }) => r.ListingKey);
      };
      const all = ['OFF1/P1', 'OFF1/P2', 'OFF1/P3', 'OFF1/R1', 'OFF2/a1'];
      const richmond = ['OFF1/P1', 'OFF1/P2', 'OFF1/P3', 'OFF1/R1'];
      expect(await keys('ModificationTimestamp lt now()'), "Core's datetime comparison").to.deep.equal(all);
      expect(await keys('now() gt ModificationTimestamp')).to.deep.equal(all);
      expect(await keys('ModificationTimestamp gt now()')).to.deep.equal([]);
      expect(await keys("contains(City,'chmo')")).to.deep.equal(richmond);
      expect(await keys("contains(City,'chmo') eq false")).to.deep.equal(['OFF2/a1']);
      expect(await keys("not contains(City,'Rich')")).to.deep.equal(['OFF2/a1']);
      expect(await keys("contains(City,'rich')"), 'contains is case-sensitive').to.deep.equal([]);
      expect(await keys("contains(tolower(City),'rich')")).to.deep.equal(richmond);
      expect(await keys("toupper(City) eq 'PARRAMATTA'")).to.deep.equal(['OFF2/a1']);
      expect(await keys("tolower(City) in ('parramatta', 'nowhere')")).to.deep.equal(['OFF2/a1']);
      expect(await keys("startswith(PostalCode,'21')")).to.deep.equal(['OFF2/a1']);
      expect(await keys("endswith(City,'matta') or endswith(City,'mond')")).to.deep.equal(all);
      expect(await keys("contains(City,'%') or contains(City,'_') or startswith(City,'%')"), '% and _ are taken literally').to.deep.equal([]);
      expect(await keys('year(CloseDate) eq 2024 and month(CloseDate) eq 2 and day(CloseDate) eq 1')).to.deep.equal(['OFF1/P3']);
      expect(await keys('month(ListingContractDate) eq 4')).to.deep.equal(['OFF2/a1']);
      expect(await keys('year(ModificationTimestamp) ge 2024 and date(ModificationTimestamp) le date(now())')).to.deep.equal(all);
      expect(await keys('date(ModificationTimestamp) gt 2999-01-01')).to.deep.equal([]);
    });

    it('pages with $top as the page size and a nextLink whenever more match, counts, skips, and caps $top at the largest page', async () => {
      const first = await odataGet(`${root}/Property?$count=true&$orderby=ListPrice desc`, { prefer: 'odata.maxpagesize=2' });
      expect(first.headers.get('preference-applied')).to.equal('odata.maxpagesize=2');
      expect(first.body['@odata.count']).to.equal(5);
      expect(first.body.value).to.have.length(2);
      expect(first.body['@odata.nextLink']).to.match(/^http:\/\/127\.0\.0\.1:\d+\/v1\/reso\/Property\?.*\$skiptoken=/);
      // $top is the page size, as MLS replication providers use it: every record, in pages of $top.
      const byTop = await readAll(`${root}/Property?$top=2&$orderby=ListPrice desc&$select=ListingKey,ListPrice`);
      expect(byTop.pages, 'pages of $top, a nextLink while more match').to.deep.equal([2, 2, 1]);
      expect(byTop.records.map((r) => r.ListPrice)).to.deep.equal([1250000, 700000, 500000, 650, null]);
      const two = await odataGet(`${root}/Property?$top=2`);
      expect(two.body.value).to.have.length(2);
      expect(two.body['@odata.nextLink'], 'more records match').to.match(/\$skiptoken=/);
      expect(new URL(two.body['@odata.nextLink']).searchParams.has('$top'), 'the page size travels in the token').to.equal(false);
      const five = await odataGet(`${root}/Property?$top=5`);
      expect([five.body.value.length, five.body['@odata.nextLink']], 'no nextLink when nothing more matches').to.deep.equal([5, undefined]);
      // The smaller of $top and odata.maxpagesize is the page.
      expect((await readAll(`${root}/Property?$top=3`, { prefer: 'odata.maxpagesize=2' })).pages).to.deep.equal([2, 2, 1]);
      expect((await readAll(`${root}/Property?$top=1`, { prefer: 'odata.maxpagesize=2' })).pages).to.deep.equal([1, 1, 1, 1, 1]);
      const all = await readAll(`${root}/Property?$orderby=ListPrice desc&$select=ListingKey,ListPrice`, { prefer: 'odata.maxpagesize=2' });
      expect(all.pages).to.deep.equal([2, 2, 1]);
      expect(all.records.map((r) => r.ListPrice)).to.deep.equal([1250000, 700000, 500000, 650, null]);
      const skipped = await odataGet(`${root}/Property?$skip=3&$orderby=ListingKey&$select=ListingKey`);
      expect(skipped.body.value.map((r: { ListingKey: string }) => r.ListingKey)).to.deep.equal(['OFF1/R1', 'OFF2/a1']);
      expect(skipped.body['@odata.nextLink']).to.equal(undefined);
      const capped = await odataGet(`${root}/Property?$top=100000`);
      expect(capped.status).to.equal(200);
      expect(capped.body.value).to.have.length(5);
      const none = await odataGet(`${root}/Property?$top=0&$count=true`);
      expect(none.body).to.include({ '@odata.count': 5 });
      expect(none.body.value).to.deep.equal([]);
      expect(none.body['@odata.nextLink'], '$top=0 asks for a count, not pages').to.equal(undefined);
    });

    it('skips up to 10,000 records as OFFSET would in every order, and refuses a deeper $skip with a 400 naming @odata.nextLink', async () => {
      const orders: [string, string, string][] = [
        ...['ListPrice desc', 'ListPrice', 'City,ListPrice desc', 'ModificationTimestamp desc', 'ListingKey desc'].map((order): [string, string, string] => [
          'Property',
          'ListingKey',
          order,
        ]),
        ['Media', 'MediaKey', 'MediaKey'],
        ['Media', 'MediaKey', 'Order desc'],
        ['Member', 'MemberKey', 'MemberKey desc'],
      ];
      for (const [resource, key, order] of orders) {
        const query = `${root}/${resource}?$orderby=${order.replace(/ /g, '%20')}&$select=${key}`;
        const all = (await readAll(query)).records.map((r) => r[key]);
        expect(all.length, `${resource} ${order}`).to.be.greaterThan(0);
        for (let skip = 0; skip <= all.length + 1; skip += 1) {
          const what = `${resource} ${order} $skip=${skip}`;
          const page = await odataGet(`${query}&$skip=${skip}&$top=2`);
          expect(page.status, what).to.equal(200);
          expect(
            page.body.value.map((r: Record<string, string>) => r[key]),
            what,
          ).to.deep.equal(all.slice(skip, skip + 2));
          // The nextLink after a skipped page goes on from its last record to the end.
          const rest = await readAll(`${query}&$skip=${skip}`, { prefer: 'odata.maxpagesize=1' });
          expect(
            rest.records.map((r) => r[key]),
            `${what}, followed`,
          ).to.deep.equal(all.slice(skip));
        }
      }
      const counted = await odataGet(`${root}/Property?$skip=10000&$count=true`);
      expect([counted.status, counted.body['@odata.count'], counted.body.value], 'the largest $skip is served').to.deep.equal([200, 5, []]);
      expect((await odataGet(`${root}/Property?$skip=000000000003&$orderby=ListingKey&$select=ListingKey`)).body.value).to.have.length(2);
      for (const skip of ['10001', '9999999', '999999999', '9'.repeat(40)]) {
        const answer = await odataGet(`${root}/Property?$skip=${skip}`);
        expect(answer.status, skip).to.equal(400);
        expect(answer.headers.get('odata-version'), skip).to.equal('4.0');
        expect(answer.body.error.code, skip).to.equal('BadRequest');
        expect(answer.body.error.target, skip).to.equal('$skip');
        expect(answer.body.error.message, skip).to.match(
          /^\$skip: \d+(…)? is more than 10000, the most this service skips; to read further, follow @odata\.nextLink/,
        );
      }
      expect((await odataGet(`${root}/Property?$skip=ten`)).body.error.message).to.match(/\$skip: "ten" is not a whole number/);
    });

    it('expands Media (hero first), the list agent and the list office', async () => {
      const one = await odataGet(`${root}/Property('${encodeURIComponent('OFF1/P1')}')?$expand=Media,ListAgent,ListOffice&$select=ListingKey`);
      expect(one.status, JSON.stringify(one.body)).to.equal(200);
      expect(one.body.Media.map((m: Record<string, unknown>) => [m.MediaURL, m.MediaCategory, m.Order, m.PreferredPhotoYN])).to.deep.equal([
        ['https://cdn.example/p1-hero.jpg', 'Photo', 0, true],
        ['https://cdn.example/p1-a.jpg', 'Photo', 1, false],
        ['https://cdn.example/p1-plan.pdf', 'Floor Plan', 2, false],
      ]);
      expect(one.body.ListAgent).to.include({ MemberFullName: 'Ann Smith', MemberEmail: 'ann@agency.example', OfficeKey: 'OFF1' });
      expect(one.body.ListOffice).to.include({ OfficeKey: 'OFF1' });
      const list = await odataGet(`${root}/Property?$expand=Media&$filter=${encodeURIComponent("ListingKey eq 'OFF1/P2'")}`);
      expect(list.body.value[0].Media).to.deep.equal([]);
      const media = await odataGet(`${root}/Media?$filter=${encodeURIComponent("ResourceRecordKey eq 'OFF1/P1' and MediaCategory eq 'Photo'")}&$orderby=Order`);
      expect(media.body.value.map((m: { MediaURL: string }) => m.MediaURL)).to.deep.equal(['https://cdn.example/p1-hero.jpg', 'https://cdn.example/p1-a.jpg']);
    });

    it('answers a query it cannot run with 400 in the OData error form, naming the part', async () => {
      const cases: [string, RegExp][] = [
        ['$filter=ListPrice gt', /\$filter: expected a field name or a value but found the end/],
        ['$filter=Nope eq 1', /Property has no field Nope/],
        ["$filter=ListPrice eq 'abc'", /ListPrice is Edm\.Decimal; the value at position 14/],
        ["$filter=StandardStatus eq org.reso.metadata.StandardStatus'Sideways'", /"Sideways" is not a value of the lookup StandardStatus/],
        [
          "$filter=StandardStatus has 'Active'",
          /has applies to enumerations, and this service has none; StandardStatus is Edm\.String \(the lookup StandardStatus\)/,
        ],
        ['$filter=CloseDate eq 2024-02-30', /CloseDate is Edm\.Date/],
        ["$filter=indexof(City,'R') eq 0", /function indexof\(\) at position 1 is not supported \(the functions served are now, contains,/],
        ["$filter=contains(ListPrice,'1')", /contains\(\) at position 1 applies to Edm\.String; ListPrice is Edm\.Decimal/],
        ['$filter=contains(City,ListingKey)', /contains\(\) at position 1 takes a string value/],
        ['$filter=contains(City)', /contains\(\) at position 1 takes 2 arguments, not 1/],
        ['$filter=now(City) gt ModificationTimestamp', /now\(\) at position 1 takes no arguments, not 1/],
        ['$filter=year(City) eq 2024', /year\(\) at position 1 applies to Edm\.Date or Edm\.DateTimeOffset; City is Edm\.String/],
        ['$filter=CloseDate lt now()', /CloseDate is Edm\.Date and now\(\) is Edm\.DateTimeOffset; they do not compare/],
        ['$filter=City eq PostalCode', /compare City with a value, not with another field/],
        ['$filter=tolower(City) eq 3', /tolower\(City\) is Edm\.String; the value at position 18 is not one/],
        ['$filter=ListPrice eq 1e999999', /\$filter: 1e999999 at position 14 is out of the range a number can have/],
        ['$filter=Latitude gt 1e999', /\$filter: 1e999 at position 13 is out of the range/],
        ['$filter=Latitude gt 1e-999', /\$filter: 1e-999 at position 13 is out of the range/],
        ['$filter=ListPrice in (1, -1e400)', /-1e400 at position 18 is out of the range/],
        ['$filter=year(CloseDate) eq 1e999', /1e999 at position 20 is out of the range/],
        ['$filter=(BedroomsTotal eq 1', /expected "\)"/],
        ['$orderby=ListPrice sideways', /\$orderby: item 1/],
        ['$select=ListPrice,Secret', /\$select: Property has no field Secret/],
        ['$expand=Rooms', /\$expand: Property has no navigation property Rooms/],
        ['$top=-1', /\$top: "-1" is not a whole number/],
        ['$skiptoken=garbage', /\$skiptoken/],
        ['$apply=groupby', /\$apply: is not a query option/],
        ['$count=maybe', /\$count: "maybe" is not true or false/],
      ];
      for (const [query, message] of cases) {
        const answer = await odataGet(`${root}/Property?${query.replace(/ /g, '%20')}`);
        expect(answer.status, query).to.equal(400);
        expect(answer.headers.get('odata-version'), query).to.equal('4.0');
        expect(answer.body.error.code, query).to.equal('BadRequest');
        expect(answer.body.error.message, query).to.match(message);
      }
      const forged = Buffer.from(JSON.stringify({ a: ["1'; drop table listings; --", 'x'] })).toString('base64url');
      const injected = await odataGet(`${root}/Property?$orderby=ListPrice&$skiptoken=${forged}`);
      expect(injected.status).to.equal(400);
      expect((await odataGet(`${root}/Nothing`)).status).to.equal(404);
      expect((await odataGet(`${root}/Property`, { 'odata-version': '5.0' })).status).to.equal(400);
    });

    it("refuses what it cannot serve in OData's error form: an Accept it cannot meet (406), $metadata as JSON (406), an over-long URL (431)", async () => {
      const refusal = async (answer: Response, status: number, code: string, message: RegExp) => {
        const text = await answer.text();
        expect(answer.status, text).to.equal(status);
        expect(answer.headers.get('content-type'), text).to.match(/^application\/json/);
        expect(answer.headers.get('odata-version'), text).to.equal('4.0');
        const body = JSON.parse(text);
        expect(body.error.code, text).to.equal(code);
        expect(body.error.message, text).to.match(message);
      };
      for (const path of ['', '/Property', "/Property('x')", '/Member']) {
        await refusal(await fetch(`${root}${path}`, { headers: { accept: 'application/xml' } }), 406, 'NotAcceptable', /answers application\/json/);
      }
      await refusal(await fetch(`${root}/Property?$format=application/xml`), 406, 'NotAcceptable', /answers application\/json/);
      // Accepts JSON in any of the ways clients write it.
      for (const accept of [
        'application/json;odata.metadata=minimal',
        'application/json;odata.metadata=full;q=0.9',
        'application/*',
        '*/*',
        'text/html, */*;q=0.1',
      ]) {
        expect((await fetch(`${root}/Property?$top=1`, { headers: { accept } })).status, accept).to.equal(200);
      }
      await refusal(await fetch(`${root}/Property`, { headers: { accept: 'application/json;q=0' } }), 406, 'NotAcceptable', /answers application\/json/);
      // $metadata is CSDL XML: JSON asked for by $format or by an Accept without XML is a 406 saying so.
      await refusal(await fetch(`${root}/$metadata?$format=application/json`), 406, 'NotAcceptable', /\$metadata is served as XML/);
      await refusal(await fetch(`${root}/$metadata?$format=json`), 406, 'NotAcceptable', /\$metadata is served as XML/);
      await refusal(await fetch(`${root}/$metadata`, { headers: { accept: 'application/json' } }), 406, 'NotAcceptable', /\$metadata is served as XML/);
      for (const ask of [{ accept: 'application/xml' }, { accept: '*/*' }, { accept: 'application/json, application/xml;q=0.5' }]) {
        const xml = await fetch(`${root}/$metadata`, { headers: ask });
        expect([xml.status, xml.headers.get('content-type')?.split(';')[0]], JSON.stringify(ask)).to.deep.equal([200, 'application/xml']);
      }
      expect((await fetch(`${root}/$metadata?$format=xml`)).status).to.equal(200);
      // A URL longer than the service reads: 431 with a body saying so, in OData's form under /v1/reso.
      const long = `${root}/Property?$filter=${encodeURIComponent(`City in (${Array.from({ length: 2000 }, (_, i) => `'c${i}'`).join(',')})`)}`;
      await refusal(await fetch(long), 431, 'RequestHeaderFieldsTooLarge', /longer than the 16 KB this service reads/);
      const elsewhere = await fetch(`${svc.url}/v1/listings?q=${'x'.repeat(20_000)}`);
      expect(elsewhere.status).to.equal(431);
      expect((await elsewhere.json()).error).to.match(/longer than the 16 KB this service reads/);
      expect((await odataGet(`${root}/Property?$top=1`)).status, 'the service goes on answering').to.equal(200);
    });

    it('tells a replicator when a listing stops being public: hiding one moves its ModificationTimestamp on', async () => {
      const before = (await odataGet(`${root}/Property('${encodeURIComponent('OFF1/P1')}')?$select=ModificationTimestamp`)).body.ModificationTimestamp;
      await admin(svc.url, 'POST', '/v1/admin/listings/visibility', { officeId: 'OFF1', uniqueId: 'P1', hidden: true });
      await admin(svc.url, 'POST', '/v1/admin/listings/visibility', { officeId: 'OFF1', uniqueId: 'P1', hidden: false });
      const after = (await odataGet(`${root}/Property('${encodeURIComponent('OFF1/P1')}')?$select=ModificationTimestamp`)).body.ModificationTimestamp;
      expect(after > before, `${after} after ${before}`).to.equal(true);
    });
  });
}

describe('RESO Web API: the per-client rate limit', function () {
  this.timeout(60_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ database: 'pglite', env: { RESO_RATE_LIMIT: '3' } });
  });
  after(() => svc.close());

  it('answers 429 with Retry-After in the OData error form past the limit', async () => {
    for (let i = 0; i < 3; i += 1) expect((await odataGet(`${svc.url}/v1/reso/Property`)).status).to.equal(200);
    const refused = await odataGet(`${svc.url}/v1/reso/Property`);
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(refused.body.error).to.include({ code: 'TooManyRequests' });
    expect(refused.body.error.message).to.match(/limit is 3 per minute/);
  });
});

describe('RESO Web API: a read the database cancels at DB_READ_TIMEOUT_MS', function () {
  this.timeout(60_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ database: 'postgres', env: { DB_READ_TIMEOUT_MS: '500' } });
  });
  after(() => svc.close());

  it('answers 503 in the OData error form, not 500', async () => {
    // A lock held on the listings makes every read of them wait until its statement timeout cancels it.
    const lock = await svc.db.transaction();
    try {
      await lock.raw('LOCK TABLE listings IN ACCESS EXCLUSIVE MODE');
      for (const query of ['', '?$count=true', '?$skip=10']) {
        const answer = await odataGet(`${svc.url}/v1/reso/Property${query}`);
        expect(answer.status, query).to.equal(503);
        expect(answer.headers.get('odata-version'), query).to.equal('4.0');
        expect(answer.body.error.code, query).to.equal('ServiceUnavailable');
        expect(answer.body.error.message, query).to.match(/did not finish within the time this service gives one read; try again shortly/);
      }
    } finally {
      await lock.rollback();
    }
    expect((await odataGet(`${svc.url}/v1/reso/Property`)).status, 'served again once the lock is gone').to.equal(200);
  });
});
