// A webhook receiver on loopback for the tests that register endpoints (webhooks, leads).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';

/** One request the receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A webhook receiver on loopback: records every request; `plan` says how to answer the next ones
 * on a path (a status, or a delay before answering), then 200.
 */
export class Receiver {
  readonly received: Received[] = [];
  readonly plans = new Map<string, ({ status: number } | { delayMs: number })[]>();
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer(async (req, res) => {
      const body = await text(req);
      this.received.push({ path: req.url!, headers: req.headers, body, at: Date.now() });
      const step = this.plans.get(req.url!)?.shift();
      if (step && 'delayMs' in step) setTimeout(() => res.writeHead(200).end('late'), step.delayMs);
      else res.writeHead(step?.status ?? 200).end(step ? 'planned failure' : 'ok');
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
