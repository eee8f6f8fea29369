import { agentEmail } from '../email-address.js';
import type { Agent, SlotMap } from '../types.js';
import { attr, type XmlNode } from '../xml-node.js';
import type { MapContext } from './map-context.js';
import { readUrl } from './map-media.js';

const SOCIAL = [
  ['twitterURL', 'twitter'],
  ['facebookURL', 'facebook'],
  ['linkedInURL', 'linkedIn'],
] as const;

/** The agent's social profile URLs (http(s) only; others are warned about and left out). */
function socialLinks(ctx: MapContext, node: XmlNode): Agent['social'] {
  const social: NonNullable<Agent['social']> = {};
  for (const [element, key] of SOCIAL) {
    const raw = textOf(node, element);
    if (!raw) continue;
    const url = readUrl(raw);
    if (url) social[key] = url;
    else ctx.issues.warning('invalid_link_url', `${element} "${raw}" is not an http(s) URL; skipped`, node.path);
  }
  return Object.keys(social).length ? social : undefined;
}

/** The first child named `name` in any case (feeds write <agentid> too): its trimmed text, or null. */
const textOf = (node: XmlNode, name: string): string | null => {
  const lower = name.toLowerCase();
  for (const c of node.children) {
    if (c.name.length === lower.length && c.name.toLowerCase() === lower) return c.text.trim() || null;
  }
  return null;
};

/**
 * listingAgent slots 1..4. An element with nothing in it (id only, or only empty children)
 * deletes its slot; a later slot repeating an earlier agent (same name and email) is removed.
 */
export function mapAgents(ctx: MapContext, listing: XmlNode): SlotMap<Agent> | undefined {
  const nodes = listing.children.filter((c) => c.name === 'listingAgent');
  if (nodes.length === 0) return undefined;
  const slots: SlotMap<Agent> = {};
  const seen = new Map<string, string>();
  for (const node of nodes) {
    const slot = (attr(node, 'id') ?? '1').trim() || '1';
    const phones = node.children
      .filter((c) => c.name === 'telephone' && c.text.trim() !== '')
      .map((c) => ({ type: attr(c, 'type') ?? 'BH', number: c.text.trim() }));
    const agent: Agent = {
      name: textOf(node, 'name'),
      email: agentEmail(textOf(node, 'email'), 'listingAgent email', ctx.issues, node.path),
      phones,
      sourceAgentId: textOf(node, 'agentID'),
      slot,
    };
    const social = socialLinks(ctx, node);
    if (social) agent.social = social;
    if (!agent.name && !agent.email && phones.length === 0) {
      slots[slot] = null;
      continue;
    }
    const identity = `${agent.name?.toLowerCase() ?? ''}|${agent.email?.toLowerCase() ?? ''}`;
    const earlier = seen.get(identity);
    if (earlier !== undefined && earlier !== slot) {
      ctx.issues.warning('duplicate_agent_removed', `listingAgent ${slot} repeats listingAgent ${earlier} (${agent.name ?? agent.email}); removed`, node.path);
      slots[slot] = null;
      continue;
    }
    seen.set(identity, slot);
    slots[slot] = agent;
  }
  return slots;
}
