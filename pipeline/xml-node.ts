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

export function child(node: XmlNode, name: string): XmlNode | undefined {
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
  const keys = Object.keys(node.attrs);
  for (let i = 0; i < keys.length; i += 1) {
    const k = keys[i];
    if (k.length === name.length && k.toLowerCase() === name.toLowerCase()) return node.attrs[k];
  }
  return undefined;
}
