import { expect } from 'chai';
import { startTestService, type TestService } from '../service.js';
import { csdlRuleBreaches } from './csdl-rules.js';
import { readMetadata } from './odata-client.js';

describe("RESO Web API: $metadata as RESO's own client and validator read it", function () {
  this.timeout(60_000);
  let svc: TestService;
  let xml: string;
  before(async () => {
    svc = await startTestService({ database: 'pglite' });
    xml = await (await fetch(`${svc.url}/v1/reso/$metadata`, { headers: { accept: 'application/xml' } })).text();
  });
  after(() => svc.close());

  it('breaks none of the rules of csdl-rules.ts: one Schema with a namespace, one container, every reference resolved', () => {
    expect(csdlRuleBreaches(xml)).to.deep.equal([]);
  });

  it('the rules catch what RESO’s client stops on: two Schemas, a dangling type, a binding to the wrong set', () => {
    const twoSchemas = xml.replace(/(<EntityType Name="Lookup">)/, '</Schema><Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="x.other">$1');
    expect(csdlRuleBreaches(twoSchemas).join('\n')).to.match(/rule 1: 2 Schema elements/);
    const enumTyped = xml.replace(
      '<Property Name="StandardStatus" Type="Edm.String"',
      '<Property Name="StandardStatus" Type="org.reso.metadata.StandardStatus"',
    );
    expect(csdlRuleBreaches(enumTyped).join('\n')).to.match(
      /rule 5: org\.reso\.metadata\.Property\.StandardStatus has type org\.reso\.metadata\.StandardStatus/,
    );
    expect(csdlRuleBreaches(xml.replace('Target="Member"', 'Target="Office"')).join('\n')).to.match(
      /rule 7: EntitySet Property's ListAgent is org\.reso\.metadata\.Member but its target holds org\.reso\.metadata\.Office/,
    );
    expect(csdlRuleBreaches(xml.replace('<PropertyRef Name="ListingKey"/>', '<PropertyRef Name="Nope"/>')).join('\n')).to.match(/rule 4/);
  });

  it('annotates lookup fields with their LookupName, and filters take a lookup value as an enumeration member of the one namespace (and of the former org.reso.metadata.enums)', async () => {
    const metadata = readMetadata(xml);
    const property = metadata.entityTypes.get('Property')!;
    const status = property.properties.find((p) => p.name === 'StandardStatus')!;
    expect(status).to.include({ type: 'Edm.String', lookupName: 'StandardStatus' });
    for (const literal of [
      "org.reso.metadata.StandardStatus'Active'",
      "org.reso.metadata.enums.StandardStatus'Active'",
      "'Active'",
      "'Active Under Contract'",
    ]) {
      const answer = await fetch(`${svc.url}/v1/reso/Property?$filter=${encodeURIComponent(`StandardStatus eq ${literal}`)}`);
      expect(answer.status, `${literal}: ${await answer.clone().text()}`).to.equal(200);
    }
    const wrong = await (await fetch(`${svc.url}/v1/reso/Property?$filter=${encodeURIComponent("StandardStatus eq other.StandardStatus'Active'")}`)).json();
    expect(wrong.error.message).to.match(/StandardStatus holds values of the lookup StandardStatus, not other\.StandardStatus/);
  });
});
