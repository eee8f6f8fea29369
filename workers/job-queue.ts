/** What the web side needs from a queue: add a job by id (idempotent), and close. */
export interface JobQueue {
  /** Adds the job unless one with this id is already waiting or running; rejects quickly when the queue is unreachable. */
  add(id: string): Promise<void>;
  /** Jobs by state, for the operator dashboard. */
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export type JobHandler = (id: string) => Promise<void>;

export interface RetryPolicy {
  attempts: number;
  /** First retry delay; doubled on each further attempt. */
  backoffMs: number;
}

export const INGEST_RETRY: RetryPolicy = { attempts: 5, backoffMs: 2000 };

/** Lead delivery: 6 attempts over about 2.5 minutes (5 s, 10 s, 20 s, 40 s, 80 s). */
export const LEAD_RETRY: RetryPolicy = { attempts: 6, backoffMs: 5000 };
