// A time chart (uPlot, vendored from npm): one line per series over days, coloured from the
// page's palette so it follows the light or dark theme; a table of the same figures for screen
// readers and for anyone who would rather read.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { html } from '../lib/html.js';

const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();
const PALETTE = ['--series-1', '--series-2', '--series-3', '--series-4', '--series-5', '--series-6'];

/** x: seconds since 1970 (one per day, or per sample with `minutes`); series: [{ label, values }]. */
export function TimeChart({ title, x, series, height = 180, id, minutes = false }) {
  // Days are UTC days (the service counts by them): shown as that day wherever the browser is.
  const at = (s) => (minutes ? new Date(s * 1000).toLocaleString() : new Date(s * 1000).toLocaleDateString(undefined, { timeZone: 'UTC' }));
  const box = useRef(null);
  useEffect(() => {
    if (!box.current) return undefined;
    const axis = { stroke: css('--muted'), grid: { stroke: css('--line') }, ticks: { stroke: css('--line') } };
    // Days: as many labels as fit the chart's width (about 64 px each), counted back from the
    // last day so the newest always has one; the scale runs half a day past each end so the first
    // and last labels fit.
    const dayAxis = minutes
      ? axis
      : {
          ...axis,
          splits: (u) => {
            const step = Math.max(1, Math.ceil(x.length / Math.max(2, Math.floor(u.width / 64))));
            return x.filter((_t, i) => (x.length - 1 - i) % step === 0);
          },
          values: (_u, ticks) => ticks.map((t) => new Date(t * 1000).toLocaleDateString(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' })),
        };
    const plot = new uPlot(
      {
        width: Math.max(240, box.current.clientWidth),
        height,
        // The legend names the series, never placeholder values; the figures are in the table below.
        legend: { show: true, live: false },
        cursor: { show: true },
        scales: minutes || x.length === 0 ? {} : { x: { time: true, range: () => [x[0] - 43_200, x[x.length - 1] + 43_200] } },
        axes: [dayAxis, { ...axis, size: 48 }],
        series: [
          { label: minutes ? 'Time' : 'Day', value: (_u, v) => (v === null ? '—' : at(v)) },
          ...series.map((s, i) => ({ label: s.label, stroke: css(PALETTE[i % PALETTE.length]), width: 2, points: { show: true, size: 5 } })),
        ],
      },
      [x, ...series.map((s) => s.values)],
      box.current,
    );
    const resize = () => plot.setSize({ width: Math.max(240, box.current.clientWidth), height });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [JSON.stringify([x, series])]);
  return html`<figure class="chart" id=${id}>
    <figcaption>${title}</figcaption>
    <div ref=${box} class="plot" aria-hidden="true"></div>
    <details>
      <summary>The figures</summary>
      <table class="data small">
        <thead><tr><th scope="col">${minutes ? 'Time' : 'Day'}</th>${series.map((s) => html`<th scope="col">${s.label}</th>`)}</tr></thead>
        <tbody>${x.map((t, i) => html`<tr><td>${at(t)}</td>${series.map((s) => html`<td class="num">${s.values[i] ?? '—'}</td>`)}</tr>`)}</tbody>
      </table>
    </details>
  </figure>`;
}
