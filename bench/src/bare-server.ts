// The baseline: a Fastify app with one route and nothing else (no hooks, no schema, no plugins),
// answering with the body Hearth's GET /api/users gave. Run as a child process by users-vs-bare.ts.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const bodyFile = process.env.BENCH_BARE_BODY_FILE;
const port = Number(process.env.BENCH_BARE_PORT);
if (!bodyFile || !Number.isInteger(port) || port <= 0) {
  console.error('bare-server: set BENCH_BARE_BODY_FILE and BENCH_BARE_PORT');
  process.exit(2);
}

// Parsed once and serialized per request, as any handler returning an object would be.
const body: unknown = JSON.parse(readFileSync(bodyFile, 'utf8'));
const app = Fastify({ logger: false });
app.get('/api/users', async () => body);
await app.listen({ port, host: '127.0.0.1' });

const stop = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
