import { expect } from 'chai';
import type { CanonicalProject } from '../../pipeline/types.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { projectDoc } from '../formats/documents.js';
import { AU_CONTEXT } from '../helpers.js';

async function project(doc: unknown) {
  const result = await validateFeed(JSON.stringify(doc), AU_CONTEXT, { format: 'project' });
  return { result, previews: (result.projects?.previews ?? []) as CanonicalProject[] };
}

describe('project documents (format=project)', () => {
  it('maps a project and its children; the price range is derived from the children when not given', async () => {
    const { result, previews } = await project(projectDoc());
    expect(result.ok, JSON.stringify(result.issues)).to.equal(true);
    expect(result.projects!.counts).to.deep.equal({ parsed: 1, valid: 1, invalid: 0 });
    const [p] = previews;
    expect(p).to.deep.include({
      projectKey: 'OFF1/HV',
      office: 'OFF1',
      format: 'project',
      status: 'active',
      name: 'Harbour View',
      stage: 'off_the_plan',
      completionDate: '2028-06',
      modTime: '2026-10-31T22:00:00Z',
    });
    expect(p.developer).to.deep.equal({ name: 'Example Developments', websiteUrl: null, logoUrl: null });
    expect(p.priceRange).to.deep.equal({ from: 750000, to: 2100000, currency: 'AUD', derived: true });
    expect(p.listingKeys).to.deep.equal(['OFF1/HV-101', 'OFF1/HV-502', 'OFF1/HV-R1']);
    expect(p.media.map((m) => [m.url!.split('/').pop(), m.hero])).to.deep.equal([
      ['hero.jpg', true],
      ['a.jpg', false],
      ['plan.pdf', false],
    ]);
    expect(p.location).to.include({ precision: 'locality' });

    const [a, b, r] = result.listings;
    expect(a).to.deep.include({
      listingKey: 'OFF1/HV-101',
      format: 'project',
      projectKey: 'OFF1/HV',
      status: 'active',
      category: 'residential',
      saleMode: 'sale',
      bedrooms: 1,
      modTime: p.modTime,
    });
    expect(a.price).to.deep.equal({ amount: 750000, currency: 'AUD', display: true, text: null });
    expect(a.headline).to.deep.equal({ 'en-AU': 'One bedroom' });
    expect(a.address).to.deep.equal(p.address);
    expect(a.media).to.deep.equal(p.media);
    expect(b.status).to.equal('under_offer');
    expect(b.headline).to.deep.equal({ 'en-AU': 'Harbour View' });
    expect(r).to.deep.include({ saleMode: 'rent', price: null });
    expect(r.rent).to.deep.equal({ amount: 900, currency: 'AUD', period: 'week', display: true, text: null });
    expect(r.address!.locality).to.equal('Ultimo');
    expect(r.location).to.deep.equal({ lat: -33.88, lng: 151.2, precision: 'source', source: 'feed' });
  });

  it('keeps an explicit price range and completes a half-given one from the children', async () => {
    expect((await project(projectDoc({ priceFrom: 700000, priceTo: 2500000 }))).previews[0].priceRange).to.deep.equal({
      from: 700000,
      to: 2500000,
      currency: 'AUD',
      derived: false,
    });
    expect((await project(projectDoc({ priceFrom: 700000 }))).previews[0].priceRange).to.deep.equal({
      from: 700000,
      to: 2100000,
      currency: 'AUD',
      derived: true,
    });
    expect((await project(projectDoc({ listings: [] }))).previews[0].priceRange).to.equal(null);
    const reversed = await project(projectDoc({ priceFrom: 3, priceTo: 2 }));
    expect(reversed.result.issues.filter((i) => i.level === 'error').map((i) => [i.code, i.path])).to.deep.include([
      'invalid_price_range',
      '/projects/0/priceFrom',
    ]);
  });

  it('reports schema problems at their JSON Pointer: a bad project invalidates its children, a bad child only itself, unknown fields are warnings', async () => {
    const { result } = await project(
      projectDoc({ stage: 'dreaming', colour: 'blue' }, [
        projectDoc({
          uniqueId: 'OK',
          listings: [
            { uniqueId: 'C1', price: 'a lot' },
            { uniqueId: 'C2', price: 500000, pool: true },
          ],
        }).projects[0],
      ]),
    );
    const summary = result.issues.filter((i) => i.code !== 'missing_description').map((i) => [i.level, i.code, i.listingIndex, i.uniqueId, i.path]);
    expect(summary).to.deep.equal([
      ['warning', 'ignored_field', null, 'HV', '/projects/0/colour'],
      ['error', 'invalid_field', null, 'HV', '/projects/0/stage'],
      ['error', 'project_invalid', 0, 'HV-101', '/projects/0/listings/0'],
      ['error', 'project_invalid', 1, 'HV-502', '/projects/0/listings/1'],
      ['error', 'project_invalid', 2, 'HV-R1', '/projects/0/listings/2'],
      ['error', 'invalid_field', 3, 'C1', '/projects/1/listings/0/price'],
      ['warning', 'ignored_field', 4, 'C2', '/projects/1/listings/1/pool'],
    ]);
    expect(result.projects!.counts).to.deep.equal({ parsed: 2, valid: 1, invalid: 1 });
    expect(result.counts).to.deep.equal({ parsed: 5, valid: 1, invalid: 4 });
    expect(result.listings.map((l) => l.listingKey)).to.deep.equal(['OFF1/C2']);
    expect(result.projects!.previews[0].priceRange).to.deep.include({ from: 500000, to: 500000 });
  });

  it('needs an office, a locality or postcode, and a readable modTime', async () => {
    const { result } = await project(projectDoc({ office: undefined, modTime: 'soon', address: { street: 'Nowhere' } }));
    const codes = result.issues.filter((i) => i.level === 'error' && i.listingIndex === null).map((i) => i.code);
    expect(codes).to.deep.equal(['missing_office_id']);
    const withOffice = await project(projectDoc({ modTime: 'soon', address: { street: 'Nowhere' } }));
    expect(withOffice.result.issues.filter((i) => i.level === 'error' && i.listingIndex === null).map((i) => [i.code, i.path])).to.deep.equal([
      ['missing_address', '/projects/0/address'],
      ['invalid_mod_time', '/projects/0/modTime'],
    ]);
  });

  it('refuses a document without a projects array', async () => {
    const fail = (doc: string) =>
      validateFeed(doc, AU_CONTEXT, { format: 'project' }).then(
        () => null,
        (e) => e.message as string,
      );
    expect(await fail('{"listings": []}')).to.contain('"projects" array');
    expect(await fail('{"projects": []}')).to.contain('no projects');
    expect(await fail('{"projects": [')).to.match(/not valid JSON.*\(line 1, column \d+\)/);
  });
});
