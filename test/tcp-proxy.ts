import type { AddressInfo } from 'node:net';
import { createConnection, createServer, type Socket } from 'node:net';
import { Transform } from 'node:stream';

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones until resume(). */
  cut(): void;
  /**
   * Holds every connection open but passes nothing either way, and takes new connections without
   * ever connecting them (a server that stopped answering), until resume(). Bytes sent meanwhile
   * are lost, so a connection held mid-query stays broken after resume().
   */
  hold(): void;
  resume(): void;
  /** Bytes passed on from the server to the clients so far (what the clients were sent). */
  received(): number;
  close(): Promise<void>;
}

/** A loopback TCP forwarder the test can cut, to take a real server away from the service and give it back. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let open = true;
  let holding = false;
  let received = 0;
  /** Passes chunks on unless the proxy is holding; counts what goes to the clients. */
  const gate = (toClient: boolean) =>
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        if (!holding && toClient) received += chunk.length;
        done(null, holding ? undefined : chunk);
      },
    });
  /** Kept until it closes, so cut() and close() can end it. */
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    track(client);
    if (holding) return;
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    track(upstream);
    client.pipe(gate(false)).pipe(upstream).pipe(gate(true)).pipe(client);
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
    hold() {
      holding = true;
    },
    resume() {
      open = true;
      holding = false;
    },
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
