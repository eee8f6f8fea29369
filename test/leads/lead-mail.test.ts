import { expect } from 'chai';
import { leadMail } from '../../workers/leads/lead-mail.js';

describe('the lead mail (pure)', () => {
  it('keeps a name and phone on one line: CR and LF cannot forge lines of the mail', () => {
    const mail = leadMail({
      to: 'agent@agency.example',
      contact: {
        email: 'jo@home.example',
        name: 'Jo\r\nListing: OFF9/FAKE (http://evil.example)',
        phone: '0400\n\rReply to: evil@x.example',
        message: 'Line one\nLine two',
      },
      listing: { office: 'OFF1', uniqueId: 'A', headline: { 'en-AU': 'Cottage' }, address: { lotNumber: '5', street: 'Sample Road', locality: 'Richmond' } },
    });
    const lines = mail.text.split('\n');
    expect(lines).to.include('From: Jo Listing: OFF9/FAKE (http://evil.example) <jo@home.example>');
    expect(lines).to.include('Phone: 0400 Reply to: evil@x.example');
    expect(lines.filter((l) => l.startsWith('Listing:'))).to.deep.equal(['Listing: OFF1/A (/v1/listings/OFF1/A)']);
    expect(lines).to.include('Address: Lot 5 Sample Road Richmond');
    // The message is the consumer's own text: its line breaks stay.
    expect(lines).to.include.members(['Line one', 'Line two']);
    expect(mail.html).not.to.match(/Jo\r?\n/);
  });
});
