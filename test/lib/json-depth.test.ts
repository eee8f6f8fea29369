import { expect } from 'chai';
import { JsonDepthGauge, jsonDeeperThan, MAX_JSON_DEPTH } from '../../lib/json-depth.js';

describe('JSON nesting depth, read in one pass before parsing', () => {
  const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

  it('counts arrays and objects, not brackets inside strings, escaped quotes included', () => {
    expect(jsonDeeperThan(deep(MAX_JSON_DEPTH))).to.equal(false);
    expect(jsonDeeperThan(deep(MAX_JSON_DEPTH + 1))).to.equal(true);
    expect(jsonDeeperThan(`{"a":${deep(MAX_JSON_DEPTH - 1)}}`)).to.equal(false);
    expect(jsonDeeperThan(`["${'['.repeat(1000)}"]`)).to.equal(false);
    expect(jsonDeeperThan(`["\\"${'{'.repeat(1000)}"]`)).to.equal(false);
    expect(jsonDeeperThan(`["\\\\"${deep(MAX_JSON_DEPTH)}]`), 'an escaped backslash ends no string').to.equal(true);
    expect(jsonDeeperThan(Buffer.from(deep(MAX_JSON_DEPTH + 1)))).to.equal(true);
  });

  it('reads a text in pieces as it reads it whole (escapes split between two pieces included) and says where it went too deep', () => {
    const text = `{\n  "s": "a\\"[[[", "t": "b\\\\", "u": "{[",\n  "v": ${deep(MAX_JSON_DEPTH + 5)}\n}`;
    const whole = new JsonDepthGauge();
    expect(whole.feed(text)).to.equal(true);
    // The bracket past the limit: line 3, after `  "v": ` and 63 brackets.
    expect(whole.at).to.deep.equal({ line: 3, column: 8 + MAX_JSON_DEPTH - 1 });
    for (let size = 1; size <= 9; size += 1) {
      const pieces = new JsonDepthGauge();
      let tooDeep = false;
      for (let i = 0; i < text.length && !tooDeep; i += size) tooDeep = pieces.feed(text.slice(i, i + size));
      expect(tooDeep, `pieces of ${size}`).to.equal(true);
      expect(pieces.at, `pieces of ${size}`).to.deep.equal(whole.at);
    }
    const shallow = new JsonDepthGauge();
    for (const piece of ['{"a": "\\', '"[[[[[[', '", "b": [1]}']) expect(shallow.feed(piece)).to.equal(false);
    expect(shallow.at).to.equal(null);
  });
});
