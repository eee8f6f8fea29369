import { isMainThread, parentPort, type ResourceLimits, Worker } from 'node:worker_threads';

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

interface PoolWorker {
  worker: Worker;
  pending: Map<number, Pending>;
}

type Reply = { id: number; result: unknown } | { id: number; error: string };

/**
 * A fixed number of worker threads running one script, started on first use. Each task goes to
 * the thread with the fewest tasks waiting; a thread works through its tasks in order. Threads do
 * not keep the process alive while they have nothing to do. A thread that dies fails the tasks it
 * held and is replaced by the next task.
 */
export class WorkerPool<Task, Result> {
  private readonly workers: PoolWorker[] = [];
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly script: URL,
    readonly size: number,
    private readonly resourceLimits: ResourceLimits = {},
  ) {}

  run(task: Task): Promise<Result> {
    if (this.closed) return Promise.reject(new Error('the worker pool is closed'));
    const target = this.pick();
    const id = this.nextId++;
    return new Promise<Result>((resolve, reject) => {
      if (target.pending.size === 0) target.worker.ref();
      target.pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      target.worker.postMessage({ id, task });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const workers = this.workers.splice(0);
    await Promise.all(workers.map((w) => w.worker.terminate()));
    for (const w of workers) this.failAll(w, new Error('the worker pool closed before the task finished'));
  }

  private pick(): PoolWorker {
    let best: PoolWorker | null = null;
    for (const w of this.workers) if (!best || w.pending.size < best.pending.size) best = w;
    if (best && (best.pending.size === 0 || this.workers.length >= this.size)) return best;
    return this.start();
  }

  private start(): PoolWorker {
    const worker = new Worker(this.script, { resourceLimits: this.resourceLimits });
    const entry: PoolWorker = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const waiting = entry.pending.get(reply.id);
      if (!waiting) return;
      entry.pending.delete(reply.id);
      if (entry.pending.size === 0) worker.unref();
      if ('error' in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve(reply.result);
    });
    const gone = (err: Error) => {
      const at = this.workers.indexOf(entry);
      if (at >= 0) this.workers.splice(at, 1);
      this.failAll(entry, err);
    };
    worker.on('error', (err) => gone(new Error(`a worker thread failed: ${err.message}`)));
    worker.on('exit', (code) => gone(new Error(`a worker thread exited (code ${code})`)));
    this.workers.push(entry);
    return entry;
  }

  private failAll(entry: PoolWorker, err: Error): void {
    const waiting = [...entry.pending.values()];
    entry.pending.clear();
    for (const p of waiting) p.reject(err);
  }
}

/** In a pool's script: answers each task with handle's result (or its error's message). */
export function serveTasks<Task, Result>(handle: (task: Task) => Result): void {
  if (isMainThread || !parentPort) throw new Error('serveTasks runs in a worker thread');
  const port = parentPort;
  port.on('message', ({ id, task }: { id: number; task: Task }) => {
    let reply: Reply;
    try {
      reply = { id, result: handle(task) };
    } catch (err) {
      reply = { id, error: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  });
}
