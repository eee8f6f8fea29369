import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { applyListing, isEarlier } from '../../pipeline/apply-listing.js';
import type { FeedListing } from '../../pipeline/feed-listing.js';
import { FeedSyntaxError } from '../../pipeline/feed-syntax-error.js';
import { readReaxmlFeed } from '../../pipeline/reaxml/read-reaxml-feed.js';
import { archiveListing, breakerTrips } from '../../pipeline/reconcile.js';
import { ADDRESS, AU_CONTEXT, feed, fixture, fixtureDir, listingXml } from '../helpers.js';

async function read(xml: string): Promise<FeedListing[]> {
  const all: FeedListing[] = [];
  for await (const batch of readReaxmlFeed(xml, AU_CONTEXT, [])) all.push(...batch);
  return all;
}
const one = async (inner: string, attrs?: string) => (await read(feed(listingXml(inner, attrs))))[0];

describe('Ingestion steps (pure): apply a listing to its stored version, the circuit breaker', () => {
  it('inserts a new listing, then finds the same record unchanged and a changed one updated', async () => {
    const first = applyListing(null, await one(`${ADDRESS}<headline>A</headline>`));
    expect(first.action).to.equal('inserted');
    const stored = (first as { listing: any }).listing;
    expect(applyListing(stored, await one(`${ADDRESS}<headline>A</headline>`, 'modTime="2024-03-05-10:00:00" status="current"')).action).to.equal('unchanged');
    const changed = applyListing(stored, await one(`${ADDRESS}<headline>B</headline>`));
    expect(changed.action).to.equal('updated');
    expect((changed as { listing: any }).listing.headline).to.deep.equal({ 'en-AU': 'B' });
  });

  it('ignores an older record, compares instants rather than strings, and restores an archived listing', async () => {
    const stored = (applyListing(null, await one(ADDRESS, 'modTime="2024-06-01T10:00:00+10:00" status="current"')) as { listing: any }).listing;
    expect(applyListing(stored, await one(ADDRESS, 'modTime="2024-05-31-10:00:00" status="current"')).action).to.equal('stale_ignored');
    // Both are 00:00Z: the same instant is not earlier, whatever the offsets say as text.
    expect(isEarlier('2024-06-01T09:30:00+09:30', '2024-06-01T10:00:00+10:00')).to.equal(false);
    expect(isEarlier('2024-06-01T10:00:00+11:00', '2024-06-01T10:00:00+10:00')).to.equal(true);
    const archived = archiveListing(stored);
    expect(archived.status).to.equal('archived');
    expect(archived.contentHash).not.to.equal(stored.contentHash);
    const back = applyListing(archived, await one(ADDRESS, 'modTime="2024-06-01T10:00:00+10:00" status="current"'));
    expect(back.action).to.equal('updated');
    expect((back as { listing: any }).listing.status).to.equal('active');
  });

  it('keeps the operator hidden flag through a merge and out of the content hash', async () => {
    const stored = { ...(applyListing(null, await one(ADDRESS)) as { listing: any }).listing, hidden: true };
    const again = applyListing(stored, await one(ADDRESS));
    expect(again.action).to.equal('unchanged');
    const changed = applyListing(stored, await one(`${ADDRESS}<headline>New</headline>`));
    expect((changed as { listing: any }).listing.hidden).to.equal(true);
  });

  it('validates the merged record: a status-only delta is valid against a stored listing, invalid alone', async () => {
    const stored = (applyListing(null, await one(ADDRESS)) as { listing: any }).listing;
    expect(applyListing(stored, await one('', 'modTime="2024-03-02-10:00:00" status="current"')).action).to.equal('unchanged');
    const alone = await one('', 'modTime="2024-03-02-10:00:00" status="current"');
    expect(applyListing(null, alone).action).to.equal('invalid');
    expect(alone.issues.list.map((i) => i.code)).to.include('missing_address');
  });

  it('reports the identity of a listing it cannot otherwise use', async () => {
    const [bad] = await read(feed(listingXml(ADDRESS, 'status="current"')));
    expect(bad.identity).to.deep.equal({ office: 'OFF1', uniqueId: 'L1' });
    expect(bad.delta()).to.equal(null);
    expect(bad.issues.list.map((i) => i.code)).to.deep.equal(['missing_mod_time']);
  });

  it('fingerprints the source: the same text and context give the same hash, any change another', async () => {
    const [a] = await read(feed(listingXml(ADDRESS)));
    const [b] = await read(feed(listingXml(ADDRESS)).replace(/\n/g, '\n\n'));
    const [c] = await read(feed(listingXml(ADDRESS.replace('Richmond', 'Richmond North'))));
    const [d] = await read(feed(listingXml(ADDRESS, 'modTime="2024-03-01-10:00:01" status="current"')));
    const other: FeedListing[] = [];
    for await (const batch of readReaxmlFeed(feed(listingXml(ADDRESS)), { ...AU_CONTEXT, currency: 'NZD' }, [])) other.push(...batch);
    expect(b.sourceHash(), 'whitespace between listings does not matter').to.equal(a.sourceHash());
    expect(new Set([a, c, d, other[0]].map((x) => x.sourceHash())).size).to.equal(4);
  });

  it('maps every fixture the same read as ingestion reads (fingerprint first) as read as the dry run does', async () => {
    const files = readdirSync(fixtureDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.xml'));
    expect(files.length).to.be.greaterThan(50);
    const strange =
      '<propertyList><residential modTime="2024-03-01-10:00:00" status="current" note="a&amp;b &lt; &quot;c&quot;&#9;d"><agentID>O</agentID><uniqueID>U&amp;1</uniqueID>' +
      `${ADDRESS}<headline><![CDATA[Big & bright]]></headline><description>A\u0001B</description></residential>\u0002<rental status="current" modTime="2024-03-01-10:00:00"/></propertyList>`;
    for (const xml of [...files.map((f) => fixture(relative(fixtureDir, join(fixtureDir, f)))), strange]) {
      const read = async (fingerprintFirst: boolean) => {
        const out: unknown[] = [];
        const feedIssues: unknown[] = [];
        try {
          for await (const batch of readReaxmlFeed(xml, AU_CONTEXT, feedIssues as never)) {
            for (const item of batch) {
              const hash = fingerprintFirst ? item.sourceHash() : '';
              out.push({ identity: item.identity, path: item.path, delta: item.delta(), issues: item.issues.list, hash: hash || item.sourceHash() });
            }
          }
        } catch (err) {
          if (!(err instanceof FeedSyntaxError)) throw err;
          out.push(err.message);
        }
        return { out, feedIssues };
      };
      const [dryRun, ingestion] = [await read(false), await read(true)];
      expect(ingestion).to.deep.equal(dryRun);
    }
  });

  it('trips the breaker only above both the minimum and the ratio', () => {
    const settings = { ratio: 0.2, min: 5 };
    expect(breakerTrips(5, 10, settings), 'not above the minimum').to.equal(false);
    expect(breakerTrips(6, 30, settings), 'exactly the ratio').to.equal(false);
    expect(breakerTrips(7, 30, settings)).to.equal(true);
    expect(breakerTrips(6, 100, settings), 'below the ratio').to.equal(false);
    expect(breakerTrips(1, 1, { ratio: 0.2, min: 0 })).to.equal(true);
  });
});
