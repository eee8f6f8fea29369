import type { Price, Range, Rent, Tax } from '../types.js';
import { attr, child, childrenNamed, childText, type XmlNode } from '../xml-node.js';
import { type MapContext, readDate } from './map-context.js';
import { readAmount, readBoolean } from './values.js';

/** display: yes (the amount is shown), no (withheld), or range (the range is shown, not the amount). */
function readDisplay(ctx: MapContext, node: XmlNode): { display: boolean; displayRange?: true } {
  const raw = attr(node, 'display');
  if (raw === undefined) return { display: true };
  const value = readBoolean(raw);
  if (value === undefined) {
    if (raw.trim().toLowerCase() === 'range') return { display: true, displayRange: true };
    ctx.issues.warning('invalid_boolean', `display="${raw}" is not yes, no or range; shown`, `${node.path}/@display`);
    return { display: true };
  }
  return { display: value };
}

const TAXES = new Set<Tax>(['unknown', 'exempt', 'inclusive', 'exclusive']);

/** tax="…" on a price, rent or outgoings: GST as stated; anything else is warned about and left out. */
export function readTax(ctx: MapContext, node: XmlNode): { tax?: Tax } {
  const raw = attr(node, 'tax');
  if (raw === undefined || raw.trim() === '') return {};
  const tax = raw.trim().toLowerCase() as Tax;
  if (TAXES.has(tax)) return { tax };
  ctx.issues.warning('invalid_tax', `tax="${raw}" is not unknown, exempt, inclusive or exclusive; not kept`, `${node.path}/@tax`);
  return {};
}

/** A <range> of amounts (min and max, either may be missing); undefined when neither reads. */
function readRange(ctx: MapContext, range: XmlNode | undefined, what: string): Range | undefined {
  if (!range) return undefined;
  const bound = (name: 'min' | 'max') => {
    const node = child(range, name);
    return node ? readPriceAmount(ctx, node, `${what} ${name}`) : null;
  };
  const min = bound('min');
  const max = bound('max');
  if (min === null && max === null) return undefined;
  if (min !== null && max !== null && min > max) {
    ctx.issues.warning('invalid_range', `${what} range ${min} to ${max} has its minimum above its maximum; not kept`, range.path);
    return undefined;
  }
  return { min, max };
}

/**
 * A price amount from text or a <range> (lower bound); 0 and empty mean no amount. rangeRead: the
 * caller reads the range itself (and warns about its bounds there), so the lower bound is taken quietly.
 */
export function readPriceAmount(ctx: MapContext, node: XmlNode, what: string, rangeRead = false): number | null {
  const range = child(node, 'range');
  const text = node.text.trim();
  if (text === '' && range) {
    const min = childText(range, 'min');
    if (!min) return null;
    if (rangeRead) return readAmount(min)?.value || null;
    return readPriceAmount(ctx, { ...range, text: min, children: [], path: `${range.path}/min[1]` }, what);
  }
  if (text === '') return null;
  const amount = readAmount(text);
  if (!amount) {
    ctx.issues.warning('invalid_price', `${what} "${text.length > 40 ? `${text.slice(0, 40)}…` : text}" is not an amount; no amount kept`, node.path);
    return null;
  }
  if (amount.normalised) ctx.issues.warning('price_normalised', `${what} "${text}" read as ${amount.value}`, node.path);
  return amount.value === 0 ? null : amount.value;
}

/** The optional parts of a price or rent element: its range, display="range" and tax, when given. */
function amountExtras(ctx: MapContext, node: XmlNode, what: string, display: { displayRange?: true }) {
  const range = readRange(ctx, child(node, 'range'), what);
  return { ...(range ? { range } : {}), ...(display.displayRange ? { displayRange: true as const } : {}), ...readTax(ctx, node) };
}

/** price + priceView + display (priceView replaces the shown amount; display=no hides both). */
export function mapPrice(ctx: MapContext, listing: XmlNode): Price | null | undefined {
  const priceNode = child(listing, 'price');
  const view = childText(listing, 'priceView');
  if (!priceNode && view === undefined) return undefined;
  const display = priceNode ? readDisplay(ctx, priceNode) : { display: true };
  return {
    amount: priceNode ? readPriceAmount(ctx, priceNode, 'price', true) : null,
    currency: ctx.currency,
    display: display.display,
    text: view ? view : null,
    ...(priceNode ? amountExtras(ctx, priceNode, 'price', display) : {}),
  };
}

const PERIODS: Readonly<Record<string, Rent['period']>> = {
  week: 'week',
  weekly: 'week',
  pw: 'week',
  month: 'month',
  monthly: 'month',
  pcm: 'month',
  annual: 'year',
  annually: 'year',
  year: 'year',
  yearly: 'year',
};

/** Residential rent: weekly preferred when both weekly and monthly are sent. */
export function mapRent(ctx: MapContext, listing: XmlNode, elementName = 'rent', defaultPeriod: Rent['period'] = 'week'): Rent | undefined {
  const nodes = childrenNamed(listing, elementName);
  if (nodes.length === 0) return undefined;
  const readOne = (node: XmlNode): Rent => {
    const rawPeriod = attr(node, 'period');
    let period = rawPeriod === undefined ? undefined : PERIODS[rawPeriod.trim().toLowerCase()];
    if (!period) {
      ctx.issues.warning('invalid_rent_period', `rent period "${rawPeriod ?? ''}" is not week or month; ${defaultPeriod} assumed`, `${node.path}/@period`);
      period = defaultPeriod;
    }
    const view = childText(listing, 'priceView');
    const display = readDisplay(ctx, node);
    const rent: Rent = {
      amount: readPriceAmount(ctx, node, 'rent', true),
      currency: ctx.currency,
      period,
      display: display.display,
      text: view ? view : null,
      ...amountExtras(ctx, node, 'rent', display),
    };
    const plusOutgoings = attr(node, 'plusOutgoings');
    if (plusOutgoings !== undefined) {
      const flag = readBoolean(plusOutgoings);
      if (flag === undefined)
        ctx.issues.warning('invalid_boolean', `plusOutgoings="${plusOutgoings}" is not yes or no; not kept`, `${node.path}/@plusOutgoings`);
      else rent.plusOutgoings = flag;
    }
    // Real commercial feeds also spell it rentPerSquareMeter; both mean the same.
    const perSqmNode = child(node, 'rentPerSquareMetre') ?? child(node, 'rentPerSquareMeter');
    if (perSqmNode) {
      const text = perSqmNode.text.trim();
      const single = text === '' ? null : readPriceAmount(ctx, perSqmNode, 'rent per square metre');
      const perSqm = single !== null ? { min: single, max: single } : readRange(ctx, child(perSqmNode, 'range'), 'rent per square metre');
      if (perSqm) rent.perSqm = perSqm;
      else if (text === '' && !child(perSqmNode, 'range'))
        ctx.issues.warning('invalid_price', `${perSqmNode.name} holds neither an amount nor a range; not kept`, perSqmNode.path);
    }
    return rent;
  };
  const all = nodes.map(readOne);
  return all.find((r) => r.period === 'week') ?? all[0];
}

export function mapSold(ctx: MapContext, listing: XmlNode): { price: Price | null; date: string | null } | undefined {
  const node = child(listing, 'soldDetails');
  if (!node) return undefined;
  const priceNode = child(node, 'soldPrice') ?? child(node, 'price');
  const dateNode = child(node, 'soldDate') ?? child(node, 'date');
  let price: Price | null = null;
  if (priceNode) {
    const amount = readPriceAmount(ctx, priceNode, 'sold price', true);
    const display = readDisplay(ctx, priceNode);
    price = {
      amount: amount === null ? null : Math.abs(amount),
      currency: ctx.currency,
      display: display.display,
      text: null,
      ...amountExtras(ctx, priceNode, 'sold price', display),
    };
  }
  const rawDate = dateNode?.text.trim();
  return { price, date: rawDate ? readDate(ctx, rawDate, () => dateNode!.path, 'sold date', { dateOnly: true }) : null };
}

export function mapBond(ctx: MapContext, listing: XmlNode): number | null | undefined {
  const node = child(listing, 'bond');
  if (!node) return undefined;
  return readPriceAmount(ctx, node, 'bond');
}
