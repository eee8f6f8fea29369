import { expect } from 'chai';
import { eventually, feed } from '../helpers.js';
import { activeKey, pushFeed } from '../ingest/client.js';
import { freePort, scratchRoles } from '../processes.js';
import { type SmtpSink, startSmtpSink } from '../smtp-sink.js';

const LISTING =
  '<residential modTime="2024-03-01-10:00:00" status="current"><agentID>OFF1</agentID><uniqueID>A</uniqueID>' +
  '<listingAgent id="1"><name>Ann</name><email>ann@agency.example</email></listingAgent><headline>Cottage</headline>' +
  '<address><streetNumber>1</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address></residential>';

describe('A lead whose sender process is killed in the middle of sending (real process, PostgreSQL, SMTP)', function () {
  this.timeout(90_000);
  const roles = scratchRoles();
  let smtp: SmtpSink;
  before(async () => {
    smtp = await startSmtpSink();
  });
  after(async () => {
    await smtp.close();
  });

  it('is delivered after a restart: nothing is lost (delivery is at least once)', async () => {
    const port = await freePort();
    const env = { DATABASE_URL: roles.url, PORT: String(port), SMTP_URL: smtp.url, LOG_LEVEL: 'info' };
    let proc = roles.start('main.js', env);
    await proc.waitFor('"listening"');
    const db = roles.db;
    const key = await activeKey(db, ['OFF1']);
    expect((await pushFeed(`http://127.0.0.1:${port}`, key, feed(LISTING))).status).to.equal(200);

    smtp.holdNext(10_000);
    const res = await fetch(`http://127.0.0.1:${port}/v1/leads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ listing: { office: 'OFF1', uniqueId: 'A' }, contact: { email: 'jo@home.example', message: 'Still available?' }, consent: true }),
    });
    expect(res.status).to.equal(202);
    const { id } = await res.json();
    await eventually('the mail on its way', () => smtp.arrived > 0);
    expect(smtp.arrived, 'the mail is on its way').to.equal(1);
    proc.child.kill('SIGKILL');
    await proc.exited;
    expect((await db('leads').where({ id }).first()).status).to.equal('sending');

    // The claim of the dead sender is honoured for its lease (5 minutes); let it lapse, then restart.
    await db('leads')
      .where({ id })
      .update({ sending_at: db.raw("now() - interval '6 minutes'"), updated_at: db.raw("now() - interval '6 minutes'") });
    proc = roles.start('main.js', env);
    await proc.waitFor('"listening"');
    let status = '';
    for (let i = 0; i < 200 && status !== 'delivered'; i += 1) {
      status = (await db('leads').where({ id }).first()).status;
      if (status !== 'delivered') await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).to.equal('delivered');
    const row = await db('leads').where({ id }).first();
    expect(row.attempts).to.equal(2);
    expect(smtp.messages.filter((m) => m.raw.includes('Still available?')).length).to.be.within(1, 2);
    proc.child.kill('SIGTERM');
    await proc.exited;
  });
});
