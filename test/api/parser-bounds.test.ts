import { expect } from 'chai';
import { ADDRESS, feed, listingXml } from '../helpers.js';
import { startTestService, type TestService } from '../service.js';

/**
 * Fields no parser may walk unbounded (docs/security.md, "Text the parsers read"), through the real
 * dry run: an over-long field is dropped or cut with its warning, and the rest of the answer is right.
 */
describe('HTTP: POST /v1/validate reads every field within its bound (PostgreSQL)', function () {
  this.timeout(60_000);
  let server: TestService;
  before(async () => {
    server = await startTestService({ database: 'postgres' });
  });
  after(() => server.close());

  const post = (body: string) => fetch(`${server.url}/v1/validate`, { method: 'POST', body, headers: { 'content-type': 'application/xml' } });

  it('drops an agent email longer than 254 characters unread, with invalid_email naming the limit, and answers the rest of the dry run', async () => {
    // `a`, 10,000 spaces, `a` (the full address parser took 1.8 s over it, holding every other request),
    // and a 255-character text that would otherwise be one address.
    const spaced = `a${' '.repeat(10_000)}a`;
    const long = `${'l'.repeat(64)}@${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(65)}.au`;
    const agent = (id: string, email: string) => `<listingAgent id="${id}"><name>Agent ${id}</name><email>${email}</email></listingAgent>`;
    const body = feed(listingXml(`${ADDRESS}${agent('1', spaced)}${agent('2', long)}${agent('3', 'Jane Agent &lt;jane@agency.example&gt;')}`));
    const res = await post(body);
    const result = await res.json();
    expect(res.status, JSON.stringify(result).slice(0, 500)).to.equal(200);
    expect(result.counts).to.deep.equal({ parsed: 1, valid: 1, invalid: 0 });
    const emails = result.issues.filter((i: { code: string }) => i.code === 'invalid_email');
    expect(emails.map((i: { message: string }) => i.message)).to.deep.equal([
      'listingAgent email is 10002 characters long, and an email address is at most 254; dropped unread',
      'listingAgent email is 255 characters long, and an email address is at most 254; dropped unread',
    ]);
    expect(result.listings[0].agents.map((a: { name: string; email: string | null }) => [a.name, a.email])).to.deep.equal([
      ['Agent 1', null],
      ['Agent 2', null],
      ['Agent 3', 'jane@agency.example'],
    ]);
  });

  it('reads a description whose markup nests 5,000 deep (html-to-text ran out of stack: a 500), leaving out what lies past 64 levels', async () => {
    const body = feed(listingXml(`${ADDRESS}<description>&lt;p&gt;Kept.&lt;/p&gt;${'&lt;b&gt;'.repeat(5_000)}Left out.</description>`));
    const res = await post(body);
    const result = await res.json();
    expect(res.status, JSON.stringify(result).slice(0, 500)).to.equal(200);
    expect(result.counts).to.deep.equal({ parsed: 1, valid: 1, invalid: 0 });
    expect(result.listings[0].description).to.deep.equal({ 'en-AU': 'Kept.' });
    expect(result.issues.map((i: { code: string; message: string }) => [i.code, i.message])).to.deep.include([
      'text_truncated',
      'description nests its markup more than 64 elements deep; what lies deeper is left out',
    ]);
  });
});
