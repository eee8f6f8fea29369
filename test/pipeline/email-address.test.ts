import { expect } from 'chai';
import emailAddresses from 'email-addresses';
import { EMAIL_MAX_CHARS, singleMailbox } from '../../pipeline/email-address.js';

const DOT_ATOM_LOCAL = /^[\u{80}-\u{10FFFF}A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[\u{80}-\u{10FFFF}A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/u;

/**
 * The answer of the full RFC 5322 parser (email-addresses, which the service used before it was
 * found to backtrack for seconds on long text) under the service's rules: the one mailbox, its
 * domain dotted and not a literal, its local part quoted unless a dot-atom. The oracle the
 * service's own linear reader is held to.
 */
function parsedMailbox(text: string): string | null {
  const parsed = emailAddresses.parseOneAddress({ input: text, rfc6532: true });
  if (parsed?.type !== 'mailbox') return null;
  const { local, domain } = parsed as emailAddresses.ParsedMailbox;
  if (!domain.includes('.') || domain.startsWith('[')) return null;
  return `${DOT_ATOM_LOCAL.test(local) ? local : `"${local.replace(/["\\]/g, '\\$&')}"`}@${domain}`;
}

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

  it('keeps no address the full RFC 5322 parser would not, and where it keeps one it is the same', () => {
    const random = seeded(34);
    const alphabet = [
      'a',
      'b',
      'Z',
      '0',
      '.',
      '.',
      '@',
      '@',
      '-',
      '_',
      '+',
      "'",
      '!',
      '"',
      '"',
      ' ',
      '(',
      ')',
      '<',
      '>',
      ',',
      ':',
      ';',
      '[',
      ']',
      '\\',
      'é',
      '\t',
      '\x01',
    ];
    let kept = 0;
    let plainKept = 0;
    for (let i = 0; i < 8_000; i += 1) {
      const length = 1 + Math.floor(random() * 20);
      let text = '';
      for (let j = 0; j < length; j += 1) text += alphabet[Math.floor(random() * alphabet.length)];
      for (const variant of [text, `a${text}@b.example`, `x@${text}`, `${text} <a@b.example>`, `"${text}"@b.example`, `<a${text}@b.example>`]) {
        const trimmed = variant.trim();
        if (trimmed === '') continue;
        const mine = singleMailbox(variant);
        if (mine === null) continue;
        expect(mine, JSON.stringify(variant)).to.equal(parsedMailbox(trimmed));
        kept += 1;
        if (mine === trimmed) plainKept += 1;
      }
    }
    // The generated texts include many addresses, plain and otherwise, so the reader was really compared.
    expect(plainKept).to.be.greaterThan(500);
    expect(kept - plainKept).to.be.greaterThan(2_000);
  });

  it('reads the forms feeds and CRMs write as the full RFC 5322 parser does', () => {
    for (const text of [
      'agent@agency.example',
      'Jane Agent <jane@agency.example>',
      '"Agent, Jane" <jane@agency.example>',
      'J. R. Agent <jr@agency.example>',
      '<jane@agency.example>',
      '  Jane\t Agent  < jane@agency.example > ',
      'jane@agency.example (Jane Agent)',
      '(office) jane@agency.example',
      'Jane (Sales (Melbourne)) <jane@agency.example>',
      '"john doe"@agency.example',
      '"john   doe  "@agency.example',
      '"say \\"hi\\""@agency.example',
      '"a".b@agency.example',
      'josé@agência.example',
      'Zoë Ågent <zoë@agency.example>',
      "o'brien+leads@mail.agency.com.au",
    ]) {
      const expected = parsedMailbox(text.trim());
      expect(expected, `${text} is an address`).to.be.a('string');
      expect(singleMailbox(text), text).to.equal(expected);
    }
  });

  it(`reads no text longer than ${EMAIL_MAX_CHARS} characters, and text of any shape in one pass`, () => {
    // A real address of 255 characters (a 64-character local part and a 190-character domain) is not one.
    const long = `${'l'.repeat(64)}@${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(65)}.au`;
    expect(long).to.have.length(EMAIL_MAX_CHARS + 1);
    expect(parsedMailbox(long), 'the full parser reads it').to.equal(long);
    expect(singleMailbox(long)).to.equal(null);
    expect(singleMailbox(long.slice(1))).to.equal(long.slice(1));
    expect(singleMailbox(`Jane <${long.slice(8)}>`), 'a display name and an address of 254 characters in all').to.equal(long.slice(8));
    expect(singleMailbox(`Jane <${long.slice(7)}>`), '255 in all').to.equal(null);
    // The shapes that made the full parser backtrack, at the longest an address may be: each is no address.
    for (const text of [
      `a${' '.repeat(EMAIL_MAX_CHARS - 2)}a`,
      '('.repeat(EMAIL_MAX_CHARS),
      'é '.repeat(EMAIL_MAX_CHARS / 2),
      'a "b" . '.repeat(31),
      'a.'.repeat(EMAIL_MAX_CHARS / 2),
      `"${' '.repeat(EMAIL_MAX_CHARS - 1)}`,
      'a@b.co,'.repeat(36),
    ]) {
      expect(singleMailbox(text), JSON.stringify(text.slice(0, 20))).to.equal(null);
    }
  });
});
