// The benchmark's yardstick: a bare Fastify hello-world on the same machine, measured in the same run.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
// The same answer after the given microseconds of work on this thread: what a route that must add
// that much CPU to each request can answer at the most, next to the baseline (bench/run.ts). With
// `?bytes=N`, the answer is a JSON body of N bytes, made once, as long as the route's it stands for.
const bodies = new Map<number, string>();
const bodyOf = (bytes: number) => {
  let body = bodies.get(bytes);
  if (body === undefined) {
    body = JSON.stringify({ hello: 'world', pad: 'x'.repeat(Math.max(0, bytes - 26)) });
    bodies.set(bytes, body);
  }
  return body;
};
app.get<{ Params: { us: string }; Querystring: { bytes?: string } }>('/work/:us', async (request, reply) => {
  const end = process.hrtime.bigint() + BigInt(Math.round(Number(request.params.us) * 1000));
  while (process.hrtime.bigint() < end);
  const bytes = Number(request.query.bytes ?? 0);
  return bytes > 0 ? reply.type('application/json; charset=utf-8').send(bodyOf(bytes)) : { hello: 'world' };
});
const port = Number(process.argv[2] ?? 0);
await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(`ready ${(app.server.address() as { port: number }).port}\n`);
