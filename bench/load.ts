/**
 * The load generator of bench/search, run as its own process so it does not share a core with the
 * server under test: autocannon cycling through the given paths. Prints autocannon's result as JSON.
 *
 *   node dist/bench/load.js '{"url":"http://127.0.0.1:3000","paths":["/v1/listings"],"connections":16,"seconds":15}'
 */
import autocannon from 'autocannon';

const { url, paths, connections, seconds } = JSON.parse(process.argv[2]) as { url: string; paths: string[]; connections: number; seconds: number };
const result = await autocannon({ url, connections, duration: seconds, requests: paths.map((path) => ({ method: 'GET', path })) });
process.stdout.write(`${JSON.stringify({ requests: result.requests, latency: result.latency, non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts })}\n`);
