import { expect } from 'chai';
import { claimOrder } from '../../sftp-watcher/claim-order.js';

describe('SFTP drops: the order a poll claims in', () => {
  const order = (offices: Record<string, string[]>, budget: number, after: string | null = null) =>
    claimOrder(
      Object.entries(offices).map(([office, files]) => ({ office, files })),
      budget,
      after,
    ).map((p) => p.file);

  it('takes one file of each office in turn, oldest first within an office, until none is left', () => {
    expect(order({ B: ['b1'], A: ['a1', 'a2', 'a3'], C: ['c1', 'c2'] }, 100)).to.deep.equal(['a1', 'b1', 'c1', 'a2', 'c2', 'a3']);
  });

  it("stops at the poll's budget, and the next poll starts after the office the last one ended with", () => {
    const offices = { A: ['a1', 'a2'], B: ['b1', 'b2'], C: ['c1', 'c2'] };
    expect(order(offices, 2)).to.deep.equal(['a1', 'b1']);
    expect(order(offices, 2, 'B')).to.deep.equal(['c1', 'a1']);
    expect(order(offices, 4, 'C'), 'after the last office: round to the first').to.deep.equal(['a1', 'b1', 'c1', 'a2']);
    expect(order(offices, 3, 'AA'), 'an office gone since: the next one in name order').to.deep.equal(['b1', 'c1', 'a1']);
  });

  it('passes over offices with nothing to claim', () => {
    expect(order({ A: [], B: ['b1', 'b2'], C: [] }, 10, 'B')).to.deep.equal(['b1', 'b2']);
    expect(order({ A: [], B: [] }, 10)).to.deep.equal([]);
  });
});
