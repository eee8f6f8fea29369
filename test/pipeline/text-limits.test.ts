import { expect } from 'chai';
import { LISTING_MAX_CHARS, TEXT_LIMITS } from '../../pipeline/text-limits.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { resoRecord } from '../formats/documents.js';
import { ADDRESS, AU_CONTEXT, feed, listingXml } from '../helpers.js';

/** One feed key must not make public answers huge: every text a listing keeps is cut at its limit, with a warning naming the field. */
describe('Text limits: stored text cut per field with a warning', () => {
  it('cuts a REAXML description, headline, agent name and commercial text at their limits', async () => {
    const long = (n: number, ch = 'x') => ch.repeat(n);
    const result = await validateFeed(
      feed(
        listingXml(
          `${ADDRESS}<headline>${long(1000)}</headline><description>${long(100_000, 'y')}</description><price>1</price>` +
            `<listingAgent id="1"><name>${long(5000, 'n')}</name></listingAgent><parkingComments>${long(3000, 'p')}</parkingComments>`,
          undefined,
          'commercial',
        ),
      ),
      AU_CONTEXT,
    );
    const listing = result.listings[0] as any;
    expect(listing.headline['en-AU']).to.have.length(TEXT_LIMITS.headline);
    expect(listing.description['en-AU']).to.have.length(TEXT_LIMITS.description);
    expect(listing.agents[0].name).to.have.length(TEXT_LIMITS.other);
    expect(listing.commercial.parkingComments).to.have.length(TEXT_LIMITS.other);
    const cuts = result.issues.filter((i) => i.code === 'text_truncated').map((i) => i.message);
    expect(cuts).to.deep.equal([
      'headline.en-AU is 1000 characters long; the first 300 are kept',
      'description.en-AU is 100000 characters long; the first 20000 are kept',
      'commercial.parkingComments is 3000 characters long; the first 2000 are kept',
      'agents.1.name is 5000 characters long; the first 2000 are kept',
    ]);
    expect(JSON.stringify(listing).length).to.be.below(30_000);
  });

  it('cuts RESO remarks too, and never splits a character made of two code units', async () => {
    const remarks = `${'a'.repeat(TEXT_LIMITS.description - 1)}😀tail`;
    const result = await validateFeed(JSON.stringify(resoRecord({ PublicRemarks: remarks })), AU_CONTEXT, { format: 'reso' });
    const description = (result.listings[0] as any).description['en-AU'] as string;
    expect(description).to.equal('a'.repeat(TEXT_LIMITS.description - 1));
    expect(result.issues.map((i) => i.code)).to.deep.equal(['text_truncated']);
  });

  it('refuses a record whose lists add up to more text than a listing may hold, and keeps the others of the feed', async () => {
    // 600 agents of 2,000-character names: each text within its limit, the record over a million characters.
    const agents = Array.from({ length: 600 }, (_, i) => `<listingAgent id="${i + 1}"><name>${String(i).padEnd(TEXT_LIMITS.other, 'n')}</name></listingAgent>`);
    const big = listingXml(`${ADDRESS}<headline>Big</headline>${agents.join('')}`);
    const small = listingXml(`${ADDRESS}<headline>Small</headline>`).replace('<uniqueID>L1</uniqueID>', '<uniqueID>L2</uniqueID>');
    const result = await validateFeed(feed(big, small), AU_CONTEXT);
    expect(result.counts).to.deep.include({ parsed: 2, valid: 1, invalid: 1 });
    const refused = result.issues.filter((i) => i.code === 'listing_too_large');
    expect(refused).to.have.length(1);
    expect(refused[0]).to.deep.include({ level: 'error' });
    expect(refused[0].message).to.contain(`the most a listing may hold is ${LISTING_MAX_CHARS}`);
    expect((result.listings as any[]).map((l) => l.uniqueId)).to.deep.equal(['L2']);
  });
});
