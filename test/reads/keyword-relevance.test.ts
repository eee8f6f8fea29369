import { expect } from 'chai';
import { createPublicReads } from '../../db/public-reads.js';
import { feed } from '../helpers.js';
import { activeKey, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';

/**
 * Relevance by hand: a small set of listings with realistic text, and for a few queries the
 * listings a person would put first, judged by reading them (docs/reads.md, Relevance). The
 * service ranks at most BOUND candidates per pool, so the common words here match more than the
 * bound and exercise the bounded path; the rare ones match fewer and are ranked whole.
 */
const BOUND = 4;

interface Text {
  id: string;
  /** Day in March 2024 (the newer, the larger): the candidates are the newest matches. */
  day: number;
  headline: string;
  description: string;
  suburb?: string;
  street?: string;
}

const listing = (t: Text) =>
  `<residential modTime="2024-03-${String(t.day).padStart(2, '0')}-10:00:00" status="current"><agentID>REL1</agentID><uniqueID>${t.id}</uniqueID>` +
  `<listingAgent id="1"><name>Sam Agent</name><email>sam@rel1.example</email></listingAgent>` +
  `<headline>${t.headline}</headline><description>${t.description}</description><price display="yes">800000</price>` +
  `<address display="yes"><streetNumber>12</streetNumber><street>${t.street ?? 'Station Street'}</street><suburb>${t.suburb ?? 'Kew'}</suburb>` +
  '<state>VIC</state><postcode>3101</postcode></address><features><bedrooms>3</bedrooms></features></residential>';

/** Passing mentions of a pool (the local pool, a pool table), each newer than every listing with a pool of its own. */
const POOL_MENTIONS: Text[] = Array.from({ length: 12 }, (_, i) => ({
  id: `M${i}`,
  day: 15 + i,
  headline: ['Neat brick veneer home', 'Renovated townhouse', 'Light filled apartment', 'Family home on a quiet court'][i % 4],
  description: [
    'Three bedrooms and a study. A short walk to the shops, the library and the public pool.',
    'Open plan living with a rumpus room big enough for a pool table, and a low maintenance courtyard.',
    'Close to schools, parks and the aquatic centre with its indoor pool, and minutes to the freeway.',
  ][i % 3],
}));

const TEXTS: Text[] = [
  // The pool listings: the word in the headline, older than every passing mention.
  {
    id: 'POOL1',
    day: 1,
    headline: 'Resort style living with a heated pool',
    description: 'Entertain all summer beside the solar heated pool and the covered alfresco area.',
  },
  { id: 'POOL2', day: 2, headline: 'Pool and garden oasis', description: 'A sparkling pool set in established gardens, with a cabana.' },
  ...POOL_MENTIONS,
  // The words together, and the words apart.
  {
    id: 'RB1',
    day: 3,
    headline: 'Character cottage',
    description: 'A solid red brick cottage with a slate roof, on a deep block with room to extend.',
  },
  {
    id: 'RB2',
    day: 27,
    headline: 'Character cottage',
    description: 'The red front door opens to a long hall, timber floors and a sunny kitchen; out the back a brick shed.',
  },
  {
    id: 'RB3',
    day: 28,
    headline: 'Updated family home',
    description: 'Painted red throughout the living areas, with a new kitchen, two bathrooms and a double garage with a brick floor.',
  },
  // A place: listings in it above a listing that mentions it.
  { id: 'FZ1', day: 4, headline: 'Warehouse conversion', description: 'Loft living with exposed beams.', suburb: 'Fitzroy' },
  { id: 'FZ2', day: 5, headline: 'Terrace in a leafy street', description: 'Period features and a north garden.', suburb: 'Fitzroy' },
  {
    id: 'FZ3',
    day: 29,
    headline: 'Apartment near the city',
    description: 'Walk to the cafes and bars of Fitzroy and Collingwood in minutes.',
    suburb: 'Abbotsford',
  },
  // A rare word: fewer matches than the bound, ranked whole.
  {
    id: 'SH1',
    day: 6,
    headline: 'Studio with a shed for the tradie',
    description: 'A large powered shed with three phase power and a workshop.',
  },
];

describe('Keyword search: relevance ranks hand-judged listings first, below and above the candidate bound (PostgreSQL)', function () {
  this.timeout(90_000);
  let svc: TestService;
  const get = async (path: string) => {
    const res = await fetch(`${svc.url}${path}`);
    return { status: res.status, body: (await res.json()) as any };
  };
  const ids = async (query: string) => {
    const { status, body } = await get(`/v1/listings?limit=100&${query}`);
    expect(status, JSON.stringify(body)).to.equal(200);
    return body.listings.map((l: { uniqueId: string }) => l.uniqueId) as string[];
  };

  before(async () => {
    svc = await startTestService({ database: 'postgres', env: { SEARCH_RELEVANCE_CANDIDATES: String(BOUND) } });
    const key = await activeKey(svc.db, ['REL1']);
    expect((await pushFeed(svc.url, key, feed(...TEXTS.map(listing)))).status).to.equal(200);
  });
  after(async () => {
    await svc?.close();
  });

  it('puts a title match above passing mentions, though the mentions are newer and more than the bound', async () => {
    const ranked = await ids('q=pool&sort=relevance');
    expect(ranked.slice(0, 2)).to.have.members(['POOL1', 'POOL2']);
    // The candidates: the two strong matches and the BOUND newest of all, never every match.
    expect(ranked).to.have.length(2 + BOUND);
    const { body } = await get('/v1/listings?q=pool&sort=relevance&limit=1');
    expect(body).to.include({ total: 14, totalIsLowerBound: false });
  });

  it('puts the words together above the words apart', async () => {
    const ranked = await ids('q=red brick&sort=relevance');
    expect(ranked[0]).to.equal('RB1');
    expect(ranked).to.have.members(['RB1', 'RB2', 'RB3']);
    expect(await ids('q="red brick"&sort=relevance')).to.deep.equal(['RB1']);
  });

  it('puts the listings in a place above one that mentions it', async () => {
    const ranked = await ids('q=fitzroy&sort=relevance');
    expect(ranked.slice(0, 2)).to.have.members(['FZ1', 'FZ2']);
    expect(ranked[2]).to.equal('FZ3');
  });

  it('ranks a search below the bound exactly as ranking every match does', async () => {
    const everything = createPublicReads(svc.db, { relevanceCandidates: 1000 });
    for (const q of ['shed', 'red brick', 'fitzroy', 'pool', 'cottage OR studio']) {
      const search = { q, saleMode: 'both', sort: { key: 'relevance', reverse: false }, limit: 100, offset: 0 } as const;
      const whole = (await everything.searchListings(search)).json.map((j) => JSON.parse(j).uniqueId);
      const bounded = await ids(`q=${encodeURIComponent(q)}&sort=relevance`);
      if (whole.length <= BOUND) expect(bounded, q).to.deep.equal(whole);
      else expect(bounded.slice(0, 2), q).to.deep.equal(whole.slice(0, 2));
    }
  });

  it('pages through the candidates by cursor and by offset, neither repeating nor skipping, and ends after them', async () => {
    for (const query of ['q=pool&sort=relevance', 'q=pool&sort=-relevance']) {
      const whole = await ids(query);
      const byCursor: string[] = [];
      let path = `/v1/listings?limit=2&${query}`;
      for (let i = 0; i < 10; i += 1) {
        const page = await get(path);
        byCursor.push(...page.body.listings.map((l: { uniqueId: string }) => l.uniqueId));
        if (!page.body.next) break;
        path = `/v1/listings?limit=2&${query}&cursor=${encodeURIComponent(page.body.next)}`;
      }
      expect(byCursor, query).to.deep.equal(whole);
      const byOffset: string[] = [];
      for (let offset = 0; offset !== null; ) {
        const page = await get(`/v1/listings?limit=2&offset=${offset}&${query}`);
        byOffset.push(...page.body.listings.map((l: { uniqueId: string }) => l.uniqueId));
        offset = page.body.nextOffset;
      }
      expect(byOffset, query).to.deep.equal(whole);
    }
    // Past the candidates a page is empty, though more listings match.
    const past = await get(`/v1/listings?limit=2&offset=${2 + BOUND}&q=pool&sort=relevance`);
    expect(past.body.listings).to.deep.equal([]);
    expect(past.body.total).to.equal(14);
  });
});
