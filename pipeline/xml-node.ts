/** A small element tree built for one listing at a time; everything outside listings is streamed past. */
export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  /** Direct text and CDATA content, concatenated (not trimmed). */
  text: string;
  /** XPath-like location, 1-based positions among same-name siblings. */
  readonly path: string;
}

/** An element with this many children or more is looked up by name through a map (fewer are scanned). */
const INDEX_FROM = 8;

/**
 * The parser's node: the path is only needed when an issue is reported, so it is built from the
 * parent on first use rather than for every element of every listing (and the position among
 * same-name siblings is counted then, from the parent's children).
 */
export class ElementNode implements XmlNode {
  readonly children: XmlNode[] = [];
  text = '';

  constructor(
    readonly name: string,
    readonly attrs: Record<string, string>,
    private readonly parent: XmlNode | null,
    /** A listing root's full path; other elements' paths are built from their parent's. */
    private cachedPath: string | null = null,
  ) {}

  /** Each name's first child, once asked for on an element with many children (the mapping asks a listing for dozens of names). */
  private firstByName: Map<string, XmlNode> | null = null;
  /** How many children firstByName was built over: the reader adds children while the element is open. */
  private indexedChildren = 0;

  /** The first child of this name (see child()). */
  firstChild(name: string): XmlNode | undefined {
    const children = this.children;
    if (children.length < INDEX_FROM) {
      for (let i = 0; i < children.length; i += 1) if (children[i].name === name) return children[i];
      return undefined;
    }
    if (this.firstByName === null || this.indexedChildren !== children.length) {
      const index = new Map<string, XmlNode>();
      for (let i = children.length - 1; i >= 0; i -= 1) index.set(children[i].name, children[i]);
      this.firstByName = index;
      this.indexedChildren = children.length;
    }
    return this.firstByName.get(name);
  }

  get path(): string {
    this.cachedPath ??= `${this.parent!.path}/${this.name}[${this.countPosition()}]`;
    return this.cachedPath;
  }

  /** The 1-based position among same-name siblings. */
  private countPosition(): number {
    let position = 0;
    for (const sibling of this.parent!.children) {
      if (sibling.name === this.name) position += 1;
      if (sibling === this) break;
    }
    return position;
  }
}

/** The first child of this name. */
export function child(node: XmlNode, name: string): XmlNode | undefined {
  if (node instanceof ElementNode) return node.firstChild(name);
  for (const c of node.children) if (c.name === name) return c;
  return undefined;
}

export function childrenNamed(node: XmlNode, name: string): XmlNode[] {
  return node.children.filter((c) => c.name === name);
}

/** Trimmed text of a direct child; undefined when the child is absent, '' when it is empty. */
export function childText(node: XmlNode, name: string): string | undefined {
  const c = child(node, name);
  return c === undefined ? undefined : c.text.trim();
}

/** Case-insensitive attribute lookup (feeds write `ID`, `Id` and `id`). */
export function attr(node: XmlNode, name: string): string | undefined {
  const direct = node.attrs[name];
  if (direct !== undefined) return direct;
  let lower: string | undefined;
  for (const k of Object.keys(node.attrs)) {
    if (k.length === name.length && k.toLowerCase() === (lower ??= name.toLowerCase())) return node.attrs[k];
  }
  return undefined;
}
