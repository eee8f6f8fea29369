import type { AddressInfo } from 'node:net';
import { createConnection, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones until resume(). */
  cut(): void;
  resume(): void;
  close(): Promise<void>;
}

/** A loopback TCP forwarder the test can cut, to take a real server away from the service and give it back. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let open = true;
  const server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    resume() {
      open = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
