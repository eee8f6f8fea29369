import { expect } from 'chai';
import { MAX_FEED_REQUEST_FIELD_CHARS, readJsonFeedRequest } from '../../api/json-feed-request.js';
import { MAX_JSON_DEPTH } from '../../lib/json-depth.js';
import { leftTempDirs, tempDirs } from '../helpers.js';

/** The text in pieces of `size` bytes, as a request arrives. */
async function* inPieces(text: string | Buffer, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function read(text: string | Buffer, size = 7) {
  const { fields, xml } = await readJsonFeedRequest(inPieces(text, size));
  const chunks: Buffer[] = [];
  for await (const c of xml.read()) chunks.push(c as Buffer);
  await xml.remove();
  return { fields, xml: Buffer.concat(chunks).toString('utf8') };
}

async function refusal(text: string | Buffer, size = 7): Promise<{ status: number; message: string }> {
  try {
    await read(text, size);
  } catch (err) {
    return { status: (err as { status: number }).status, message: (err as Error).message };
  }
  throw new Error('expected a refusal');
}

describe('A JSON feed request read as it arrives', () => {
  it('decodes the xml string into the file exactly as JSON.parse would, escapes and characters split across pieces included', async () => {
    const xml = '<a b="c">line 1\n\tline 2 \\ / é 中文 😀 \u2028 \u0000 end</a>';
    const json = JSON.stringify({ format: 'reaxml', xml, context: { currency: 'AUD', sourceOfficeId: 'O1' }, mode: 'full' });
    // \u escapes for every non-ASCII character: a surrogate pair arrives as two escapes.
    const escaped = json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    for (const text of [json, escaped]) {
      for (const size of [1, 2, 3, 5, 64, 1 << 20]) {
        const got = await read(text, size);
        expect(got.xml, `${size}-byte pieces`).to.equal(xml);
        expect(got.fields).to.deep.equal({ format: 'reaxml', xml: 'streamed', context: { currency: 'AUD', sourceOfficeId: 'O1' }, mode: 'full' });
      }
    }
  });

  it('keeps other values as JSON.parse does: numbers, booleans, null, arrays, an own "__proto__" member', async () => {
    const got = await read('{"a":[1,-2.5e3,true,false,null,{"b":"c"}],"__proto__":{"x":1},"xml":""}');
    expect(got.fields).to.deep.equal(JSON.parse('{"a":[1,-2.5e3,true,false,null,{"b":"c"}],"__proto__":{"x":1},"xml":""}'));
    expect(Object.getPrototypeOf(got.fields)).to.equal(Object.prototype);
    expect(got.xml).to.equal('');
  });

  it('refuses what is not one JSON value, an empty body, a second xml, too many other characters, too deep a nesting; nothing is left on disk', async () => {
    const before = tempDirs('feed-body-');
    expect(await refusal('{"xml": "<a/>"')).to.deep.include({ status: 400 });
    expect((await refusal('{"xml": "<a/>"')).message).to.match(/^request body is not valid JSON: .+ \(within its first 14 characters\)$/);
    expect((await refusal('{"xml": "<a/>"} trailing')).message).to.match(/^request body is not valid JSON/);
    expect((await refusal('{"xml": "a\u0001b"}')).message).to.match(/^request body is not valid JSON/);
    expect((await refusal('')).message).to.match(/^request body is empty/);
    expect((await refusal('{"xml": "<a/>", "xml": "<b/>"}')).message).to.equal('body.xml is given more than once');
    const big = await refusal(JSON.stringify({ xml: '<a/>', note: 'n'.repeat(MAX_FEED_REQUEST_FIELD_CHARS) }), 4096);
    expect(big.status).to.equal(413);
    expect(big.message).to.match(/other than xml hold more than 65536 characters/);
    const deep = await refusal(`{"xml":"<a/>","n":${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}}`, 4096);
    expect(deep).to.deep.equal({ status: 400, message: `request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep, the limit` });
    expect(await leftTempDirs('feed-body-', before)).to.deep.equal([]);
  });
});
