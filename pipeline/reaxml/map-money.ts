import type { Price, Rent } from '../types.js';
import { attr, child, childrenNamed, childText, type XmlNode } from '../xml-node.js';
import { type MapContext, readDate } from './map-context.js';
import { readAmount, readBoolean } from './values.js';

function readDisplay(ctx: MapContext, node: XmlNode): boolean {
  const raw = attr(node, 'display');
  if (raw === undefined) return true;
  const value = readBoolean(raw);
  if (value === undefined) {
    if (raw.trim().toLowerCase() === 'range') return true;
    ctx.issues.warning('invalid_boolean', `display="${raw}" is not yes or no; shown`, `${node.path}/@display`);
    return true;
  }
  return value;
}

/** A price amount from text or a <range> (lower bound); 0 and empty mean no amount. */
function readPriceAmount(ctx: MapContext, node: XmlNode, what: string): number | null {
  const range = child(node, 'range');
  const text = node.text.trim();
  if (text === '' && range) {
    const min = childText(range, 'min');
    return min ? readPriceAmount(ctx, { ...range, text: min, children: [], path: `${range.path}/min[1]` }, what) : null;
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

/** price + priceView + display (priceView replaces the shown amount; display=no hides both). */
export function mapPrice(ctx: MapContext, listing: XmlNode): Price | null | undefined {
  const priceNode = child(listing, 'price');
  const view = childText(listing, 'priceView');
  if (!priceNode && view === undefined) return undefined;
  return {
    amount: priceNode ? readPriceAmount(ctx, priceNode, 'price') : null,
    currency: ctx.currency,
    display: priceNode ? readDisplay(ctx, priceNode) : true,
    text: view ? view : null,
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
    return { amount: readPriceAmount(ctx, node, 'rent'), currency: ctx.currency, period, display: readDisplay(ctx, node), text: view ? view : null };
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
    const amount = readPriceAmount(ctx, priceNode, 'sold price');
    price = { amount: amount === null ? null : Math.abs(amount), currency: ctx.currency, display: readDisplay(ctx, priceNode), text: null };
  }
  const rawDate = dateNode?.text.trim();
  return { price, date: rawDate ? readDate(ctx, rawDate, () => dateNode!.path, 'sold date', { dateOnly: true }) : null };
}

export function mapBond(ctx: MapContext, listing: XmlNode): number | null | undefined {
  const node = child(listing, 'bond');
  if (!node) return undefined;
  return readPriceAmount(ctx, node, 'bond');
}
