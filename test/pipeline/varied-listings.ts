/**
 * Deterministic, varied REAXML listings for equivalence tests: every listing kind and status,
 * sale/lease/both, price display and range forms, rent periods, sold details, bond, features,
 * areas in several units, inspections, auctions, links, photo slots with deletions, floorplans,
 * documents, several agents, lot numbers, geocodes, placeholder text and a few invalid values.
 * Listing i is always the same text.
 */

const KINDS = ['residential', 'rental', 'commercial', 'land', 'rural', 'holidayRental', 'business'] as const;
const STATUSES = ['current', 'current', 'current', 'sold', 'leased', 'withdrawn', 'offmarket', 'deleted'];
const SUBURBS = [
  ['RICHMOND', 'VIC', '3121'],
  ['Bondi', 'NSW', '2026'],
  ['FORTITUDE VALLEY', 'QLD', '4006'],
  ['Fremantle', 'WA', '6160'],
  ['', 'SA', '5045'],
  ['Hobart', 'TAS', ''],
];
const UNITS = ['squareMeter', 'square', 'acre', 'hectare', 'squareFeet', 'sqm'];

/** A small deterministic generator (mulberry32) so the same i gives the same listing. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function variedListing(i: number): string {
  const r = random(i + 0x6d2b79f5);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)];
  const maybe = (p: number) => r() < p;
  const kind = KINDS[i % KINDS.length];
  const status = pick(STATUSES);
  const [suburb, state, postcode] = pick(SUBURBS);
  const day = String(1 + (i % 28)).padStart(2, '0');
  const parts: string[] = [];
  parts.push(`<agentID>OFF${i % 13}</agentID><uniqueID>V-${i}</uniqueID>`);
  if (maybe(0.3)) parts.push(`<underOffer value="${pick(['yes', 'no', 'maybe'])}"/>`);
  if (kind === 'commercial') parts.push(`<commercialListingType value="${pick(['sale', 'lease', 'both', 'other'])}"/>`);
  const categoryElement =
    { land: 'landCategory', rural: 'ruralCategory', commercial: 'commercialCategory', holidayRental: 'category' }[kind as string] ?? 'category';
  if (kind === 'business') parts.push(`<businessCategory id="1"><name>${pick(['Food', 'Retail', ''])}</name></businessCategory>`);
  else if (maybe(0.9)) parts.push(`<${categoryElement} name="${pick(['House', 'Unit', 'Retail', 'Cropping', 'Residential', ''])}"/>`);
  const priceForm = Math.floor(r() * 5);
  if (priceForm === 0) parts.push(`<price display="${pick(['yes', 'no', 'range', 'maybe'])}">${Math.floor(r() * 2e6)}</price>`);
  if (priceForm === 1) parts.push(`<price display="yes"><range><min>${400000 + i}</min><max>${500000 + i}</max></range></price>`);
  if (priceForm === 2) parts.push(`<price>$${(450 + (i % 50)).toFixed(0)},000</price><priceView>Contact agent</priceView>`);
  if (priceForm === 3) parts.push(`<priceView>${pick(['Offers over $1m', '', 'Auction'])}</priceView>`);
  if (kind === 'rental' || kind === 'holidayRental' || maybe(0.1)) {
    parts.push(`<rent period="${pick(['week', 'weekly', 'month', 'pcm', 'fortnight', ''])}" display="yes">${300 + (i % 900)}</rent>`);
    if (maybe(0.4)) parts.push(`<rent period="month">${1500 + i}</rent>`);
    if (maybe(0.5)) parts.push(`<bond>${2000 + (i % 1000)}</bond>`);
  }
  if (kind === 'commercial' && maybe(0.5)) parts.push(`<commercialRent period="annual">${90000 + i}</commercialRent>`);
  if (status === 'sold' && maybe(0.8)) {
    parts.push(`<soldDetails><soldPrice display="${pick(['yes', 'no'])}">${700000 + i}</soldPrice><soldDate>2024-02-${day}</soldDate></soldDetails>`);
  }
  if (maybe(0.85)) {
    const address = [
      maybe(0.3) ? `<lotNumber>${i % 40}</lotNumber>` : '',
      maybe(0.4) ? `<subNumber>${i % 9}</subNumber>` : '',
      maybe(0.9) ? `<streetNumber>${i % 300}</streetNumber>` : '',
      `<street>${pick(['Main &amp; High Road', 'Smith St', 'The Esplanade', ''])}</street>`,
      `<suburb display="${pick(['yes', 'no'])}">${suburb}</suburb>`,
      `<state>${state}</state>`,
      postcode ? `<postcode>${postcode}</postcode>` : '',
      maybe(0.5) ? `<country>${pick(['AUS', 'Australia', 'AU', 'Atlantis'])}</country>` : '',
    ].join('');
    parts.push(`<address display="${pick(['yes', 'no', 'yes'])}">${address}</address>`);
  }
  if (maybe(0.2)) parts.push(`<Geocode><Latitude>${-33.8 - (i % 100) / 1000}</Latitude><Longitude>${151.2 + (i % 100) / 1000}</Longitude></Geocode>`);
  if (maybe(0.9)) parts.push(`<headline>${pick([`Home ${i} near everything`, 'TBA', '', 'Café &amp; garden'])}</headline>`);
  if (maybe(0.9)) parts.push(`<description><![CDATA[${'A renovated kitchen, a north-facing garden.\n'.repeat(1 + (i % 4))}]]></description>`);
  if (maybe(0.8)) {
    const features = [
      `<bedrooms>${pick(['3', '0', 'two', '4.5', ''])}</bedrooms>`,
      `<bathrooms>${1 + (i % 3)}</bathrooms>`,
      maybe(0.6) ? `<garages>${i % 3}</garages>` : '',
      maybe(0.5) ? `<carports>1</carports>` : '',
      maybe(0.5) ? `<airConditioning>${pick(['yes', 'no', '1', '0', 'maybe'])}</airConditioning>` : '',
      maybe(0.4) ? `<pool>${pick(['yes', 'no'])}</pool>` : '',
      maybe(0.4) ? `<heating type="${pick(['gas', 'electric'])}"/>` : '',
      maybe(0.3) ? `<otherFeatures>${pick(['Shed, deck', ''])}</otherFeatures>` : '',
    ].join('');
    parts.push(`<features>${features}</features>`);
  }
  if (maybe(0.6)) {
    const area = maybe(0.2)
      ? `<area unit="${pick(UNITS)}"><range><min>${100 + i}</min><max>${200 + i}</max></range></area>`
      : `<area unit="${pick(UNITS)}">${(i % 900) + 0.5}</area>`;
    parts.push(`<landDetails>${area}${maybe(0.3) ? '<frontage>20</frontage>' : ''}</landDetails>`);
  }
  if (maybe(0.4)) parts.push(`<buildingDetails><area unit="${pick(UNITS)}">${20 + (i % 30)}</area></buildingDetails>`);
  if (maybe(0.5)) {
    const inspections = [`${day}-Mar-2024 11:00am to 11:30am`, '  21-Mar-2024   1:00pm  to 1:30pm ', 'by appointment'].slice(0, 1 + (i % 3));
    parts.push(`<inspectionTimes>${inspections.map((t) => `<inspection>${t}</inspection>`).join('')}</inspectionTimes>`);
  }
  if (maybe(0.2)) parts.push(`<auction date="${pick([`2024-04-${day}-12:00:00`, '2024-04-31', ''])}"/>`);
  if (maybe(0.2)) parts.push(`<dateAvailable>${pick([`2024-05-${day}`, 'now', ''])}</dateAvailable>`);
  if (maybe(0.3)) parts.push(`<externalLink href="${pick([`https://tour.example.com/${i}`, 'ftp://x', '', 'not a url'])}"/>`);
  if (maybe(0.2)) parts.push(`<videoLink href="https://video.example.com/${i}"/>`);
  if (maybe(0.9)) {
    const slots = ['m', 'a', 'b', 'c', 'd', 'AA', 'e'].slice(0, 1 + Math.floor(r() * 7));
    const imgs = slots.map((id) =>
      maybe(0.1)
        ? `<img id="${id}"/>`
        : `<img id="${id}" modTime="2024-03-${day}-10:00:00" url="${pick([`https://img.example.com/${i}/${id}.jpg`, `http://img.example.com/${i}/${id}.JPG`, 'notaurl'])}" format="jpg"/>`,
    );
    parts.push(`<images>${imgs.join('')}</images>`);
  }
  if (maybe(0.5)) {
    const objects = [
      `<floorplan id="1" url="https://img.example.com/${i}/f1.gif"/>`,
      maybe(0.3) ? '<floorplan id="2"/>' : '',
      maybe(0.3) ? `<document id="1" url="https://docs.example.com/${i}/brochure.pdf" usage="brochure" contentType="application/pdf"/>` : '',
    ].join('');
    parts.push(`<objects>${objects}</objects>`);
  }
  const agents = 1 + Math.floor(r() * 3);
  for (let a = 1; a <= agents; a += 1) {
    if (maybe(0.1)) continue;
    parts.push(
      `<listingAgent id="${a}"><name>Agent ${(i + a) % 97}</name><telephone type="BH">03 9000 ${String(i % 10000).padStart(4, '0')}</telephone>` +
        `${maybe(0.5) ? '<telephone type="mobile">0400 000 000</telephone>' : ''}<email>${maybe(0.9) ? `agent${a}@example.com` : 'nope'}</email></listingAgent>`,
    );
  }
  const modTime = pick([`2024-03-${day}-10:${String(i % 60).padStart(2, '0')}:00`, `2024-03-${day}T10:00:00+10:00`, `${day}/03/2024`]);
  return `<${kind} modTime="${modTime}" status="${status}">\n${parts.join('\n')}\n</${kind}>\n`;
}

/** A propertyList of the varied listings from..to (exclusive). */
export function variedFeed(from: number, to: number): string {
  let out = '<?xml version="1.0" encoding="utf-8"?>\n<propertyList date="2024-03-01-10:00:00">\n';
  for (let i = from; i < to; i += 1) out += variedListing(i);
  return `${out}</propertyList>\n`;
}
