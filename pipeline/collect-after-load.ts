import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's full collection, got once (null where it cannot be had). */
let fullCollection: (() => void) | null | undefined;

/**
 * One full garbage collection, right after a large table has been built (the gazetteers, whose
 * loading leaves the parsed index file behind as garbage). Without it, a process that has just
 * built the Australian gazetteer went on to read feeds with its old generation marked nearly all
 * the time, promoting what scavenges found live and collecting it again: the one-thread dry run
 * spent about half its CPU in the collector (docs/performance.md, the collector's cycle). One
 * collection here (about 50 ms, once per process and table) took 3 × 20,000 listings from
 * 8.5-9.6 s of CPU to 4.2 s. V8 gives the collection to code only with --expose-gc; the flag set
 * now exposes it in a new context, not in this one.
 */
export function collectAfterLoad(): void {
  if (fullCollection === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      fullCollection = runInNewContext('gc') as () => void;
    } catch {
      fullCollection = null;
    }
  }
  fullCollection?.();
}
