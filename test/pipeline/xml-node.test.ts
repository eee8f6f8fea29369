/** child() on the reader's elements: the first of a name, whether the element has few children or many (then looked up through a map). */
import { expect } from 'chai';
import { attr, child, ElementNode } from '../../pipeline/xml-node.js';

function element(names: string[]): ElementNode {
  const node = new ElementNode('residential', {}, null, '/residential');
  for (const [i, name] of names.entries()) {
    const c = new ElementNode(name, {}, node);
    c.text = String(i);
    node.children.push(c);
  }
  return node;
}

describe('xml-node child()', () => {
  it('gives the first child of a name among few or many, and none for an absent name', () => {
    for (const count of [3, 8, 30]) {
      const node = element(Array.from({ length: count }, (_, i) => (i % 3 === 0 ? 'img' : `e${i}`)));
      expect(child(node, 'img')?.text, `${count} children`).to.equal('0');
      expect(child(node, 'e2')?.text).to.equal('2');
      expect(child(node, 'absent')).to.equal(undefined);
    }
  });

  it('sees children added after a lookup', () => {
    const node = element(Array.from({ length: 10 }, (_, i) => `e${i}`));
    expect(child(node, 'late')).to.equal(undefined);
    node.children.push(new ElementNode('late', {}, node));
    expect(child(node, 'late')?.name).to.equal('late');
  });

  it('reads attributes in any case, the exact name first', () => {
    const node = new ElementNode('img', { ID: 'a', id: 'b', Url: 'u' }, null, '/img');
    expect(attr(node, 'id')).to.equal('b');
    expect(attr(node, 'url')).to.equal('u');
    expect(attr(node, 'file')).to.equal(undefined);
  });
});
