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

  it('the rules catch what RESO’s client stops on: two Schemas, a dangling enumeration, a binding to the wrong set', () => {
    const twoSchemas = xml.replace(/(<EnumType )/, '</Schema><Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="x.enums">$1');
    expect(csdlRuleBreaches(twoSchemas).join('\n')).to.match(/rule 1: 2 Schema elements/);
    expect(csdlRuleBreaches(twoSchemas).join('\n')).to.match(
      /rule 5: org\.reso\.metadata\.Property\.StandardStatus has type org\.reso\.metadata\.StandardStatus/,
    );
    expect(csdlRuleBreaches(xml.replace('Target="Member"', 'Target="Office"')).join('\n')).to.match(
      /rule 7: EntitySet Property's ListAgent is org\.reso\.metadata\.Member but its target holds org\.reso\.metadata\.Office/,
    );
    expect(csdlRuleBreaches(xml.replace('<PropertyRef Name="ListingKey"/>', '<PropertyRef Name="Nope"/>')).join('\n')).to.match(/rule 4/);
  });

  it('declares every enumeration in the one namespace, and filters take its members qualified by it (and by the former org.reso.metadata.enums)', async () => {
    const metadata = readMetadata(xml);
    const property = metadata.entityTypes.get('Property')!;
    const status = property.properties.find((p) => p.name === 'StandardStatus')!;
    expect(status.type).to.equal('org.reso.metadata.StandardStatus');
    expect(metadata.enums.get('org.reso.metadata.StandardStatus')).to.include('Active');
    for (const literal of ["org.reso.metadata.StandardStatus'Active'", "org.reso.metadata.enums.StandardStatus'Active'", "'Active'"]) {
      const answer = await fetch(`${svc.url}/v1/reso/Property?$filter=${encodeURIComponent(`StandardStatus eq ${literal}`)}`);
      expect(answer.status, `${literal}: ${await answer.clone().text()}`).to.equal(200);
    }
    const wrong = await (await fetch(`${svc.url}/v1/reso/Property?$filter=${encodeURIComponent("StandardStatus eq other.StandardStatus'Active'")}`)).json();
    expect(wrong.error.message).to.match(/StandardStatus is of type org\.reso\.metadata\.StandardStatus, not other\.StandardStatus/);
  });
});
