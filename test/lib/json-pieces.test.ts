import { expect } from 'chai';
import { jsonPieces } from '../../lib/json-pieces.js';

describe('JSON in pieces', () => {
  it('joins to exactly what JSON.stringify writes, members left out or null as it does', () => {
    const values: unknown[] = [
      {},
      [],
      { ok: true, counts: { parsed: 2, valid: 1, invalid: 1 }, reconcile: undefined, upserts: [{ listingKey: 'OFF1/A', action: 'inserted' }], issues: [] },
      { a: [1, 'two', null, undefined, () => 3, Symbol('s'), { b: undefined, c: [undefined] }], d: () => 1, e: Symbol('e'), f: null },
      { when: new Date('2026-11-27T10:00:00Z'), custom: { toJSON: () => 'custom' }, nested: { deep: { deeper: [1, { x: 'y' }] } } },
      { '2': 'integer keys first', b: 1, '1': 'then', text: 'quotes " backslash \\ tab \t line \n emoji 🏠 lone \ud800', n: -0, big: 1e21, nan: Number.NaN },
      [[1, [2, [3]]], { a: [] }, 'x'],
      Object.assign(Object.create(null), { noProto: [1, 2] }),
    ];
    for (const value of values) {
      for (const depth of [0, 1, 2, 3]) expect([...jsonPieces(value, depth)].join('')).to.equal(JSON.stringify(value));
    }
  });

  it('gives the members of the top two levels one at a time', () => {
    const pieces = [...jsonPieces({ upserts: [{ k: 1 }, { k: 2 }], counts: { n: 2 } })];
    expect(pieces).to.deep.equal(['{', '"upserts":', '[', '{"k":1}', ',', '{"k":2}', ']', ',"counts":', '{', '"n":', '2', '}', '}']);
  });
});
