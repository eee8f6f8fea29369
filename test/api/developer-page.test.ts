import { expect } from 'chai';
import { useServiceAndBrowser } from '../browser.js';
import { ADDRESS, feed, listingXml } from '../helpers.js';

describe('Browser: the /developer page requests a key and dry-runs a feed', function () {
  this.timeout(60_000);
  const rig = useServiceAndBrowser();

  it('creates a suspended key for the offices typed in, and shows it once', async () => {
    const page = await rig.browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
    await page.goto(`${rig.svc.url}/developer`);
    await page.getByLabel('Client or CRM name').fill('Browser CRM');
    await page.getByLabel('Alert email').fill('dev@crm.example');
    await page.getByLabel('Office ids').fill('OFF1\nOFF2, OFF3');
    await page.getByRole('button', { name: 'Request key' }).click();
    const key = await page.locator('#new-key').innerText();
    expect(key).to.match(/^lfk_/);
    expect(await page.locator('#key-result').innerText())
      .to.contain('OFF1, OFF2, OFF3')
      .and.contain('suspended');
    const stored = await rig.svc.db('feed_keys').where({ client_name: 'Browser CRM' }).first();
    expect(stored.office_ids).to.deep.equal(['OFF1', 'OFF2', 'OFF3']);
    expect(stored.status).to.equal('suspended');

    // A refused request shows the API's error.
    await page.getByLabel('Alert email').fill('dev@crm.example');
    await page.getByLabel('Office ids').fill(' , ');
    await page.getByRole('button', { name: 'Request key' }).click();
    await page.locator('#key-result .error').waitFor();
    expect(await page.locator('#key-result .error').innerText()).to.match(/officeIds/);
    expect(
      errors.filter((e) => !/400/.test(e)),
      errors.join('; '),
    ).to.deep.equal([]);
    await page.close();
  });

  it('dry-runs a pasted feed and lists its issues', async () => {
    const page = await rig.browser.newPage();
    await page.goto(`${rig.svc.url}/developer`);
    await page
      .getByLabel('REAXML', { exact: true })
      .fill(
        feed(
          listingXml(ADDRESS),
          listingXml('<address><street>Main Road</street></address>', 'modTime="2024-03-01-10:00:00" status="current"').replace('L1', 'L2'),
        ),
      );
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.locator('#dry-summary').waitFor();
    expect(await page.locator('#dry-summary').innerText()).to.equal('2 parsed, 1 valid, 1 invalid');
    expect(await page.locator('#dry-result table').innerText()).to.contain('missing_address');
    await page.getByLabel('REAXML', { exact: true }).fill('<propertyList><residential>');
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.locator('#dry-result .error').waitFor();
    expect(await page.locator('#dry-result .error').innerText()).to.match(/not well-formed|unclosed|unexpected end/i);
    await page.close();
  });
});
