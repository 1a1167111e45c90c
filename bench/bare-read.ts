import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import pino from 'pino';
import { createRedis } from '@ledger/platform';

/**
 * A reference for the HTTP benchmark: the least any service can do to answer
 * a consent read from a Redis read model, with none of the ledger's rules.
 * Bare Fastify; the bearer secret checked against its SHA-256 (as the key
 * verifier checks it); one `GET` on an auto-pipelined connection (as the read model's) of the document the service
 * answered for the benchmark's consent; `JSON.parse`, a field derived at read
 * time and Fastify's `JSON.stringify`; one JSON log line per request on
 * stdout, written synchronously as the service writes it. No tenant, scope,
 * rate limit, request context, validation or problem handling.
 *
 * It shows what this machine and this stack (Node, Fastify, ioredis, Redis)
 * allow for the route's shape, beside what the service does in the same run.
 * Started as its own process, like hello-world: BARE_READ_DOCUMENT_KEY names
 * the Redis key, BARE_READ_SECRET_SHA256 the hex digest of the bearer secret.
 */
async function main(): Promise<void> {
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'bench-bare-read', { enableAutoPipelining: true });
  const documentKey = required('BARE_READ_DOCUMENT_KEY');
  const secretDigest = Buffer.from(required('BARE_READ_SECRET_SHA256'), 'hex');
  const log = pino({}, pino.destination({ dest: 1, sync: true }));
  const server = Fastify({ logger: false });
  server.addHook('onRequest', (request, reply, done) => {
    const secret = request.headers.authorization?.startsWith('Bearer ') ? request.headers.authorization.slice(7) : '';
    if (!timingSafeEqual(createHash('sha256').update(secret).digest(), secretDigest)) {
      void reply.code(401).send({ status: 401 });
      return;
    }
    done();
  });
  server.addHook('onResponse', (request, reply, done) => {
    log.info({ requestId: request.id, req: { method: request.method, path: request.url }, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed');
    done();
  });
  server.get('/consents/:id', async (_request, reply) => {
    const text = await redis.get(documentKey);
    if (text === null) return reply.code(404).send({ status: 404 });
    return { ...(JSON.parse(text) as Record<string, unknown>), readAt: Date.now() };
  });
  const address = await server.listen({ port: 0, host: '127.0.0.1' });
  process.stderr.write(`${address}\n`);
  const stop = () => void server.close().then(() => redis.quit().finally(() => process.exit(0)));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`bare-read: ${name} is required`);
  return value;
}

void main();
