import type { Server } from 'node:http';
import { maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import { RESO_ROOT } from './reso/odata-request.js';

/**
 * Answers for requests Node's HTTP parser refuses before Express sees them (a request line and
 * headers longer than it reads, bytes that are not HTTP): Node's own answer has an empty body, so
 * here they get the service's error body, and OData's under /v1/reso (docs/reso.md, Errors).
 */

/** How much of a request line and its headers Node reads (16 KB unless --max-http-header-size says otherwise). */
const HEADER_LIMIT_KB = Math.round(maxHeaderSize / 1024);

const ANSWERS: Record<string, { status: number; reason: string; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'RequestHeaderFieldsTooLarge',
    message: `the URL and headers are longer than the ${HEADER_LIMIT_KB} KB this service reads; shorten the query (a long $filter of many values: split it into several requests)`,
  },
  HPE_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', code: 'RequestTimeout', message: 'the request did not arrive in time' },
};
const BAD_REQUEST = { status: 400, reason: 'Bad Request', code: 'BadRequest', message: 'the request is not HTTP/1.1 this service can read' };

/** Whether the bytes read so far are a request for the RESO Web API. */
function isReso(packet: unknown): boolean {
  if (!Buffer.isBuffer(packet)) return false;
  const line = packet.subarray(0, 200).toString('latin1');
  return new RegExp(`^[A-Z]+ ${RESO_ROOT.replace(/\//g, '\\/')}(?:[/?# ]|$)`).test(line);
}

export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const answer = (err.code && ANSWERS[err.code]) || BAD_REQUEST;
    const odata = isReso(err.rawPacket);
    const body = JSON.stringify(odata ? { error: { code: answer.code, message: answer.message } } : { error: answer.message });
    socket.end(
      [
        `HTTP/1.1 ${answer.status} ${answer.reason}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        ...(odata ? ['OData-Version: 4.0'] : []),
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
}
