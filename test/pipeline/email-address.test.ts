import { expect } from 'chai';
import { parsedMailbox, singleMailbox } from '../../pipeline/email-address.js';

/** A seeded generator, so a failure names inputs that can be re-run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('Email addresses: one mailbox or nothing', () => {
  it('keeps a plain address as it is and a display-name address as its mailbox', () => {
    expect(singleMailbox('agent@agency.example')).to.equal('agent@agency.example');
    expect(singleMailbox('  first.last+tag@mail.agency.com.au ')).to.equal('first.last+tag@mail.agency.com.au');
    expect(singleMailbox("o'brien@agency.example")).to.equal("o'brien@agency.example");
    expect(singleMailbox('Jane Agent <jane@agency.example>')).to.equal('jane@agency.example');
    expect(singleMailbox('josé@agência.example')).to.equal('josé@agência.example');
  });

  it('keeps a quoted local part quoted (an unquoted "john doe" is no address), and drops quotes only where they change nothing', () => {
    expect(singleMailbox('"john doe"@agency.example')).to.equal('"john doe"@agency.example');
    expect(singleMailbox('Jane <"j.d."@agency.example>')).to.equal('"j.d."@agency.example');
    expect(singleMailbox('"say \\"hi\\""@agency.example')).to.equal('"say \\"hi\\""@agency.example');
    expect(singleMailbox('"jane"@agency.example')).to.equal('jane@agency.example');
    expect(singleMailbox('"josé"@agency.example')).to.equal('josé@agency.example');
    // What is kept reads back as the same mailbox.
    for (const text of ['"john doe"@agency.example', '"say \\"hi\\""@agency.example', '"a@b"@agency.example']) {
      const kept = singleMailbox(text)!;
      expect(singleMailbox(kept), text).to.equal(kept);
    }
  });

  it('refuses several addresses, groups, bare hosts, literals, dots out of place and line breaks', () => {
    for (const text of [
      '',
      'a@x.example, b@y.example',
      'group: a@x.example;',
      'agent@localhost',
      'agent@[127.0.0.1]',
      '.agent@agency.example',
      'agent.@agency.example',
      'a..b@agency.example',
      'agent@agency..example',
      'agent@agency.example.',
      'agent@x.example\r\nBcc: other@y.example',
      'no at sign',
    ]) {
      expect(singleMailbox(text), text).to.equal(null);
    }
  });

  it('answers every text as the full RFC 5322 parser does (the plain-address shortcut changes nothing)', () => {
    const random = seeded(34);
    const alphabet = ['a', 'b', 'Z', '0', '.', '.', '@', '@', '-', '_', '+', "'", '!', '"', ' ', '(', ')', '<', '>', ',', ':', ';', '[', ']', '\\', 'é', '\t'];
    const texts: string[] = [];
    for (let i = 0; i < 5_000; i += 1) {
      const length = 1 + Math.floor(random() * 16);
      let text = '';
      for (let j = 0; j < length; j += 1) text += alphabet[Math.floor(random() * alphabet.length)];
      texts.push(text, `a${text}@b.example`, `x@${text}`);
    }
    let plainKept = 0;
    for (const text of texts) {
      const trimmed = text.trim();
      if (trimmed === '') continue;
      const fast = singleMailbox(text);
      expect(fast, JSON.stringify(text)).to.equal(parsedMailbox(trimmed));
      if (fast === trimmed) plainKept += 1;
    }
    // The generated texts include many plain addresses, so the shortcut was really compared.
    expect(plainKept).to.be.greaterThan(200);
  });
});
