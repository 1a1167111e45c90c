import Fastify from 'fastify';

/**
 * The baseline of the HTTP benchmark: a bare Fastify 5 server answering
 * `GET /` with `{hello:'world'}`, what this machine and Node do for a request
 * with no work behind it. Started as its own process, like the service.
 */
async function main(): Promise<void> {
  const server = Fastify({ logger: false });
  server.get('/', async () => ({ hello: 'world' }));
  const address = await server.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
  process.stderr.write(`${address}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();
