// The benchmark's yardstick: a bare Fastify hello-world on the same machine, measured in the same run.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
// The same answer after the given microseconds of work on this thread: what a route that must add
// that much CPU to each request can answer at the most, next to the baseline (bench/run.ts).
app.get<{ Params: { us: string } }>('/work/:us', async (request) => {
  const end = process.hrtime.bigint() + BigInt(Math.round(Number(request.params.us) * 1000));
  while (process.hrtime.bigint() < end);
  return { hello: 'world' };
});
const port = Number(process.argv[2] ?? 0);
await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(`ready ${(app.server.address() as { port: number }).port}\n`);
