/**
 * Slow and oversized clients against a listening service with short timeouts: connections that
 * trickle their headers or their body must be cut off within the configured times; headers
 * over Node's limit get 431; a body over 1 MiB gets a 413 the client can read.
 */
import net from 'node:net';
import { postOversized, rawConnection as connection, type TestApp } from '../../test/harness.js';

export interface SlowFigures {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  slowHeaderConnections: number;
  slowHeaderCutInTime: number;
  slowBodyConnections: number;
  slowBodyCutInTime: number;
  /** The longest any of them stayed open. */
  longestMs: number;
  oversizedHeader431: boolean;
  oversizedBody413Readable: number;
  oversizedBodyTries: number;
}

const trickle = (s: net.Socket, everyMs: number, piece: () => string) => {
  const timer = setInterval(() => s.writable && s.write(piece()), everyMs);
  s.on('close', () => clearInterval(timer));
};

export async function slowClients(t: TestApp, count: number): Promise<SlowFigures> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (t.app.server.address() as net.AddressInfo).port;
  const { headersTimeoutMs, requestTimeoutMs } = t.deps.config;
  // Node checks the times once a second: a connection may outlive its time by that much.
  const slack = 1500;
  const heads = Array.from({ length: count }, () =>
    connection(port, (s) => {
      s.write('GET /healthz HTTP/1.1\r\nhost: x\r\n');
      trickle(s, 500, () => `x-slow: ${Date.now()}\r\n`);
    }),
  );
  const bodies = Array.from({ length: count }, () =>
    connection(port, (s) => {
      s.write(`POST /v1/reservations HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.root.key}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{`);
      trickle(s, 500, () => ' ');
    }),
  );
  const headTimes = (await Promise.all(heads)).map((r) => r.ms);
  const bodyTimes = (await Promise.all(bodies)).map((r) => r.ms);
  const oversized = await connection(port, (s) => s.write(`GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(32 * 1024)}\r\n\r\n`));
  let readable = 0;
  const tries = [false, true];
  for (const chunked of tries) {
    if (/^HTTP\/1\.1 413/.test(await postOversized(port, t.root.key, 8 * 1024 * 1024, chunked))) readable += 1;
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    slowHeaderConnections: count,
    slowHeaderCutInTime: headTimes.filter((ms) => ms <= headersTimeoutMs + slack).length,
    slowBodyConnections: count,
    slowBodyCutInTime: bodyTimes.filter((ms) => ms <= requestTimeoutMs + slack).length,
    longestMs: Math.max(...headTimes, ...bodyTimes),
    oversizedHeader431: /^HTTP\/1\.1 431/.test(oversized.text),
    oversizedBody413Readable: readable,
    oversizedBodyTries: tries.length,
  };
}
