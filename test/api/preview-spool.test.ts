import { existsSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { PreviewSpool } from '../../api/preview-spool.js';
import { previewOf, previewOfJson } from '../../pipeline/applied.js';
import type { CanonicalListing } from '../../pipeline/types.js';

/**
 * The array the spool writes, read back. Each chunk is copied as it comes, as a socket copies it
 * into the kernel: the spool refills its buffers once a write is done.
 */
async function arrayOf(spool: PreviewSpool): Promise<unknown[]> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(Buffer.from(chunk)));
  await spool.writeArray(out);
  out.end();
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const preview = (uniqueId: string, description = '') => ({ listingKey: `O:${uniqueId}`, uniqueId, description }) as unknown as CanonicalListing;

describe('PreviewSpool', () => {
  it('gives back every preview in order, multi-byte text and previews larger than its buffer included, with replacements in place', async () => {
    const spool = new PreviewSpool();
    try {
      const expected: unknown[] = [];
      const add = (p: CanonicalListing) => {
        expect(spool.add(previewOf(p))).to.equal(expected.length);
        expected.push(p);
      };
      // Small previews in multi-byte text fill the buffer many times over; the large ones (over
      // 256 KB once encoded) go past it, one of them when the buffer already holds some.
      for (let i = 0; i < 3000; i += 1) add(preview(`small-${i}`, `Küche, 客厅 and 🏠 number ${i}`));
      add(preview('large-1', '€'.repeat(120_000)));
      add(preview('large-2', 'x'.repeat(300_000)));
      for (let i = 0; i < 10; i += 1) add(preview(`tail-${i}`, 'ü'));
      const replacement = preview('small-7', 'the newer record');
      spool.replace(7, previewOfJson(JSON.stringify(replacement)));
      expected[7] = replacement;
      expect(await arrayOf(spool)).to.deep.equal(expected);
    } finally {
      spool.close();
    }
  });

  it('writes an empty array when nothing was added, and removes its file on close', async () => {
    const spool = new PreviewSpool();
    const path = (spool as unknown as { path: string }).path;
    expect(await arrayOf(spool)).to.deep.equal([]);
    expect(existsSync(path)).to.equal(true);
    spool.close();
    expect(existsSync(path)).to.equal(false);
  });

  it('fails, leaving no rejection unhandled, when the answer is closed while previews are being written', async () => {
    const spool = new PreviewSpool();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (let i = 0; i < 20_000; i += 1) spool.add(previewOf(preview(`p-${i}`, 'a description of some length '.repeat(4))));
      const out = new PassThrough();
      let seen = 0;
      // The client goes away after the '[' and the first chunk of previews.
      out.on('data', () => {
        seen += 1;
        if (seen === 2) out.destroy();
      });
      let failure: unknown = null;
      await spool.writeArray(out).catch((err: unknown) => {
        failure = err;
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(failure).to.be.instanceOf(Error);
      expect(seen).to.equal(2);
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      spool.close();
    }
  });
});
