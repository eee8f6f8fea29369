import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

describe('a feed read on one thread keeps none of its text in what outlives the read', () => {
  it("keeps a 2,000-listing feed's issues (each naming its uniqueID) in a small part of the feed's size", async () => {
    // V8 keeps a substring as a view of the string it was cut from: issues holding uniqueIDs and
    // texts cut from the feed's 64 KB pieces held the whole feed text (about 17 MB here) alive.
    const child = fileURLToPath(new URL('kept-text-child.js', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', child], { maxBuffer: 1 << 20 });
    const { feedBytes, kept, issues } = JSON.parse(stdout.trim().split('\n').pop()!) as { feedBytes: number; kept: number; issues: number };
    expect(issues).to.be.at.least(2000);
    expect(feedBytes).to.be.above(16_000_000);
    expect(kept, `${kept} bytes of heap kept for ${issues} issues of a ${feedBytes}-character feed`).to.be.below(feedBytes / 4);
  });

  it('keeps no feed text in the caches that outlive it, when every listing has a modTime of its own', async () => {
    // The date reader's cache (its keys, and reasons quoting the text) held each distinct modTime
    // as a view of the 64 KB piece it was cut from: with one per listing, the whole feed stayed.
    const child = fileURLToPath(new URL('kept-text-child.js', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', child, 'own-times'], { maxBuffer: 1 << 20 });
    const { feedBytes, kept, issues } = JSON.parse(stdout.trim().split('\n').pop()!) as { feedBytes: number; kept: number; issues: number };
    expect(issues).to.be.at.least(2000);
    expect(kept, `${kept} bytes of heap kept after a ${feedBytes}-character feed whose listings have 2,000 modTimes`).to.be.below(feedBytes / 4);
  });
});
