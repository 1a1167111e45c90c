import { createHash, timingSafeEqual } from 'node:crypto';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import pino from 'pino';
import { createRedis } from '@ledger/platform';

/**
 * The references of the HTTP benchmark: the least any service can do to
 * answer three of the measured routes, with none of the ledger's rules. Bare
 * Fastify; the bearer secret checked against its SHA-256 (as the key
 * verifier checks it); one JSON log line per request on stdout, written
 * synchronously as the service writes it. No tenant, scope, rate limit,
 * request context, validation or problem handling.
 *
 * - `GET /consents/:id`, the bare read: one `GET` of the document the
 *   service answered for the benchmark's consent (BARE_CONSENT_KEY), on an
 *   auto-pipelined connection as the read model's; `JSON.parse`, a field
 *   derived at read time and Fastify's `JSON.stringify`.
 * - `POST /accesses/authorize`, the bare replay: Fastify's JSON body parser,
 *   the SHA-256 of the body as parsed (BARE_REPLAY_REQUEST, the request the
 *   benchmark replays), compared with the one request it knows, and the
 *   service's answer to it (BARE_REPLAY_ANSWER) sent again from memory.
 * - `POST /accesses/decide`, the bare durable decision: Fastify's JSON body
 *   parser, and the body appended as one row to SQLite (BARE_DECISIONS_FILE,
 *   WAL, `synchronous=FULL`), the rows of one event-loop turn in one
 *   transaction, answered once it has committed: what any service that
 *   acknowledges a decision only once it is durable pays, with none of the
 *   reads, rules or hashing of the ledger's.
 *
 * Each shows what this machine and this stack (Node, Fastify, ioredis,
 * Redis) allow for the route's shape, beside what the service does in the
 * same run. Started as its own process, like hello-world;
 * BARE_SECRET_SHA256 is the hex digest of the bearer secret.
 */
async function main(): Promise<void> {
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'bench-bare-service', { enableAutoPipelining: true });
  const consentKey = required('BARE_CONSENT_KEY');
  const secretDigest = Buffer.from(required('BARE_SECRET_SHA256'), 'hex');
  const replayedRequest = sha256(JSON.stringify(JSON.parse(required('BARE_REPLAY_REQUEST'))));
  const replayAnswer = JSON.parse(required('BARE_REPLAY_ANSWER')) as Record<string, unknown>;
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
    const text = await redis.get(consentKey);
    if (text === null) return reply.code(404).send({ status: 404 });
    return { ...(JSON.parse(text) as Record<string, unknown>), readAt: Date.now() };
  });
  server.post('/accesses/authorize', async (request, reply) => {
    if (sha256(JSON.stringify(request.body)) !== replayedRequest) return reply.code(409).send({ status: 409 });
    return replayAnswer;
  });
  const decide = durableAppender(required('BARE_DECISIONS_FILE'));
  server.post('/accesses/decide', async (request, reply) => {
    const position = await decide(JSON.stringify(request.body));
    return reply.code(201).send({ decision: 'authorized', position });
  });
  const address = await server.listen({ port: 0, host: '127.0.0.1' });
  process.stderr.write(`${address}\n`);
  const stop = () => void server.close().then(() => redis.quit().finally(() => process.exit(0)));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** Appends rows durably, those of one event-loop turn in one transaction (a group commit); each promise settles once its row is committed. */
function durableAppender(file: string): (body: string) => Promise<number> {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE IF NOT EXISTS decisions (position INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO decisions (body) VALUES (?)');
  const commit = db.transaction((bodies: string[]) => bodies.map((body) => Number(insert.run(body).lastInsertRowid)));
  let pending: Array<{ body: string; committed: (position: number) => void }> = [];
  const flush = () => {
    const group = pending;
    pending = [];
    const positions = commit(group.map((row) => row.body));
    group.forEach((row, i) => row.committed(positions[i]));
  };
  return (body) =>
    new Promise((committed) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ body, committed });
    });
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`bare-service: ${name} is required`);
  return value;
}

void main();
