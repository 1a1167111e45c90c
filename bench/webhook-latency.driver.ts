import { Agent, IncomingHttpHeaders, createServer, request } from 'node:http';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';

/**
 * The outside world of the webhook latency benchmark, in a worker thread of
 * its own (bench/webhook-latency.bench.ts starts it): the integrator's client
 * driving grants over HTTP, and the integrator's receiver answering 204.
 *
 * It has its own event loop, so the service's work on the main thread (a
 * synchronous SQLite commit, a burst of job handling) delays neither the
 * start of a grant nor the stamping of a delivery's receipt. Only Node's
 * built-ins are used here.
 */

/** Epoch milliseconds with sub-millisecond resolution, comparable between the threads of one process. */
const preciseNow = (): number => performance.timeOrigin + performance.now();

export interface PlannedGrant {
  interactionId: string;
  /** The JSON body, prepared before the clock starts. */
  body: string;
}

export interface GrantTiming {
  /** When the grant was due: the open-loop schedule's time, from which the latencies are counted. */
  scheduledAt: number;
  /** When the request was actually handed to the socket layer. */
  sentAt: number;
  /** When the complete answer had arrived; null when the request failed without one. */
  respondedAt: number | null;
  status: number | null;
  redecConsentId: string | null;
  /** The grant's recordedAt as answered. */
  recordedAt: number | null;
  error: string | null;
}

export interface Receipt {
  receivedAt: number;
  webhookId: string | null;
  body: string;
}

export type DriverRequest =
  | { type: 'drive'; baseUrl: string; apiKey: string; intervalMs: number; grants: PlannedGrant[] }
  | { type: 'count' }
  | { type: 'take-receipts' }
  | { type: 'close' };

export type DriverReply =
  | { type: 'ready'; url: string }
  | { type: 'driven'; timings: GrantTiming[] }
  | { type: 'count'; received: number }
  | { type: 'receipts'; receipts: Receipt[] }
  | { type: 'closed' };

/** The first grant is due this long after the drive begins. */
const FIRST_DUE_AFTER_MS = 20;

if (parentPort) {
  const port = parentPort;
  const reply = (message: DriverReply) => port.postMessage(message);
  let receipts: Receipt[] = [];
  let received = 0;

  const receiver = createServer((incoming, answer) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const receivedAt = preciseNow();
      receipts.push({ receivedAt, webhookId: headerOf(incoming.headers, 'webhook-id'), body: Buffer.concat(chunks).toString('utf8') });
      received += 1;
      answer.writeHead(204).end();
    });
  });
  receiver.listen(0, '127.0.0.1', () => {
    const { port: listening } = receiver.address() as AddressInfo;
    reply({ type: 'ready', url: `http://127.0.0.1:${listening}/hooks` });
  });

  port.on('message', (message: DriverRequest) => {
    switch (message.type) {
      case 'drive':
        void drive(message).then((timings) => reply({ type: 'driven', timings }));
        break;
      case 'count':
        reply({ type: 'count', received });
        break;
      case 'take-receipts':
        reply({ type: 'receipts', receipts });
        receipts = [];
        received = 0;
        break;
      case 'close':
        receiver.closeAllConnections();
        receiver.close(() => reply({ type: 'closed' }));
        break;
    }
  });
}

/**
 * Open loop: grant i is due at start + i * interval and is sent then,
 * whether or not earlier grants have been answered, so a slow service gets
 * the same load as a fast one and its slowness shows in the latencies
 * (counted from the due time) instead of thinning the load.
 */
async function drive({ baseUrl, apiKey, intervalMs, grants }: Extract<DriverRequest, { type: 'drive' }>): Promise<GrantTiming[]> {
  const agent = new Agent({ keepAlive: true });
  const timings: GrantTiming[] = new Array(grants.length);
  const inFlight: Array<Promise<void>> = [];
  const start = preciseNow() + FIRST_DUE_AFTER_MS;
  const dueAt = (i: number) => start + i * intervalMs;
  let next = 0;
  await new Promise<void>((done) => {
    const tick = () => {
      const now = preciseNow();
      while (next < grants.length && dueAt(next) <= now) {
        const index = next++;
        inFlight.push(send(agent, baseUrl, apiKey, grants[index], dueAt(index)).then((timing) => void (timings[index] = timing)));
      }
      if (next >= grants.length) done();
      else setTimeout(tick, Math.max(0, dueAt(next) - preciseNow()));
    };
    setTimeout(tick, FIRST_DUE_AFTER_MS);
  });
  await Promise.all(inFlight);
  agent.destroy();
  return timings;
}

function send(agent: Agent, baseUrl: string, apiKey: string, grant: PlannedGrant, scheduledAt: number): Promise<GrantTiming> {
  const sentAt = preciseNow();
  const failed = (error: string): GrantTiming => ({ scheduledAt, sentAt, respondedAt: null, status: null, redecConsentId: null, recordedAt: null, error });
  return new Promise((resolve) => {
    const outgoing = request(
      `${baseUrl}/v1/redec/consent-interactions/${grant.interactionId}/grant`,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(grant.body)) },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('error', (error) => resolve(failed(error.message)));
        answer.on('end', () => {
          const respondedAt = preciseNow();
          const status = answer.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          let body: { redecConsentId?: string; recordedAt?: number } = {};
          try {
            body = JSON.parse(text) as typeof body;
          } catch {
            // Reported through the status and error below.
          }
          resolve({
            scheduledAt,
            sentAt,
            respondedAt,
            status,
            redecConsentId: body.redecConsentId ?? null,
            recordedAt: body.recordedAt ?? null,
            error: status === 201 ? null : text.slice(0, 300),
          });
        });
      },
    );
    outgoing.on('error', (error) => resolve(failed(error.message)));
    outgoing.end(grant.body);
  });
}

function headerOf(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return value === undefined ? null : Array.isArray(value) ? value[0] : value;
}
