// The console's one table: sortable headers (aria-sort, a button per sortable column), a pager
// with the total, an optional row below each row (details, issues), and cards on a phone (each
// cell carries its column's name, which the phone layout shows before the value).
import { html } from '../lib/html.js';

/**
 * columns: [{ label, sort?: 'name' (the API's sort key; its natural direction first), cell: (row) => content, num?: true }]
 * rowAttrs(row): attributes of the row (data-*); below(row): a second row under it, or null.
 * sort: the current sort ('name' or '-name'); onSort(next) when a header is chosen.
 *
 * @param {{
 *   columns: { label: string, sort?: string, cell: (row: any) => unknown, num?: boolean, className?: string }[],
 *   rows: object[] | null | undefined,
 *   rowAttrs?: (row: any) => Record<string, string>,
 *   below?: (row: any) => unknown,
 *   sort?: string,
 *   onSort?: (next: string) => void,
 *   empty?: unknown,
 *   label: string,
 *   busy?: boolean,
 * }} props
 */
export function DataTable({ columns, rows, rowAttrs = () => ({}), below, sort, onSort, empty, label, busy = false }) {
  if (!rows) return html`<p class="muted">Loading…</p>`;
  if (rows.length === 0) return html`<div class="panel empty">${empty}</div>`;
  const header = (column) => {
    if (!column.sort || !onSort) return html`<th scope="col">${column.label}</th>`;
    const key = column.sort.replace(/^-/, '');
    const active = sort?.replace(/^-/, '') === key;
    const descending = active && sort.startsWith('-');
    const next = active ? (descending ? key : `-${key}`) : column.sort;
    return html`<th scope="col" aria-sort=${active ? (descending ? 'descending' : 'ascending') : undefined}>
      <button type="button" class="sort" onClick=${() => onSort(next)}>${column.label}${active ? (descending ? ' ↓' : ' ↑') : ''}</button>
    </th>`;
  };
  return html`<div class="table-wrap" role="region" aria-label=${label} aria-busy=${String(busy)} tabindex="0">
    <table class="data">
      <thead><tr>${columns.map(header)}</tr></thead>
      <tbody>
        ${rows.map((row) => {
          const extra = below?.(row);
          return html`<tr ...${rowAttrs(row)}>${columns.map((c) => html`<td data-label=${c.label || undefined} class=${c.num ? 'num' : c.className}>${c.cell(row)}</td>`)}</tr>${extra ?? null}`;
        })}
      </tbody>
    </table>
  </div>`;
}

/** "21–40 of 73 feeds", with Previous and Next. */
export function Pager({ offset, shown, total, limit, onPage, noun }) {
  if (!total) return null;
  return html`<div class="pager">
    <span class="muted">${offset + 1}–${offset + shown} of ${total} ${noun}</span>
    <button type="button" disabled=${offset === 0} onClick=${() => onPage(Math.max(0, offset - limit))}>Previous</button>
    <button type="button" disabled=${offset + shown >= total} onClick=${() => onPage(offset + limit)}>Next</button>
  </div>`;
}
