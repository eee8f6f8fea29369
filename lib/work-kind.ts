import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Whether the code running now is answering an HTTP request or doing background work (a job, a
 * periodic task, a start). The embedded database gives a request's statements their turn first
 * (db/query-turns.ts); on PostgreSQL nothing reads it. Work that is neither marked is background.
 */
const kind = new AsyncLocalStorage<'request' | 'background'>();

/** Runs fn, and everything it starts that has not marked itself otherwise, as a request's work. */
export function asRequestWork<T>(fn: () => T): T {
  return kind.run('request', fn);
}

/** Runs fn, and everything it starts, as background work: a job started by a request is not that request's. */
export function asBackgroundWork<T>(fn: () => T): T {
  return kind.run('background', fn);
}

/** Whether the code running now is a request's. */
export function isRequestWork(): boolean {
  return kind.getStore() === 'request';
}
