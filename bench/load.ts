/**
 * The load generator of bench/search, run as its own process so it does not share a core with the
 * server under test: autocannon cycling through the given paths. Prints autocannon's raw result
 * (encoded histograms, so rounds can be aggregated into one; see aggregate()) as JSON.
 *
 *   node dist/bench/load.js '{"url":"http://127.0.0.1:3000","paths":["/v1/listings"],"connections":16,"seconds":15}'
 */
import autocannon from 'autocannon';

export interface LoadRun {
  url: string;
  paths: string[];
  connections: number;
  seconds: number;
}

export interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** One result from raw results of one or more runs against the same URL (autocannon's own aggregation). */
export function aggregate(raw: unknown[], run: Pick<LoadRun, 'url' | 'connections'>): LoadResult {
  // aggregateResult is documented (README) but missing from @types/autocannon.
  const { aggregateResult } = autocannon as unknown as { aggregateResult(results: unknown[], opts: object): LoadResult };
  return aggregateResult(raw, { url: run.url, connections: run.connections });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url, paths, connections, seconds } = JSON.parse(process.argv[2]) as LoadRun;
  const raw = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: paths.map((path) => ({ method: 'GET', path })),
    skipAggregateResult: true,
  } as autocannon.Options);
  process.stdout.write(`${JSON.stringify(raw)}\n`);
}
