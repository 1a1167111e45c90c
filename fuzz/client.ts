import { IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { FuzzRequest } from './generate';

/**
 * What came back for one request. `closed` is the service closing the
 * connection while a body, or a request head larger than Node reads
 * (MAX_HEADER_BYTES), was in flight, before its answer could be read: what a
 * server may do with what it will not read (it answered, then stopped
 * reading). `no answer` is silence for `timeoutMs`, or a connection closed on
 * a request it had to read whole: a failure, like a 5xx.
 */
export interface FuzzResponse {
  status: number | 'closed' | 'no answer';
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The client's error, for the two statuses that are not HTTP. */
  error?: string;
  ms: number;
}

/** Node's default limit on a request's head (request line and headers): beyond it, the service answers 431 and closes. */
const MAX_HEADER_BYTES = 16 * 1024;

/** Answers are read whole up to this size; an artifact or a list is far smaller. */
const MAX_BODY_BYTES = 8 << 20;

/** One request on a connection of its own, so that one hostile request cannot spoil the next one's connection. */
export function send(baseUrl: string, request: FuzzRequest, timeoutMs: number): Promise<FuzzResponse> {
  const started = Date.now();
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    let timedOut = false;
    let settled = false;
    const finish = (response: Omit<FuzzResponse, 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...response, ms: Date.now() - started });
    };
    const outgoing = httpRequest({ hostname, port, method: request.method, path: request.url, headers: request.headers, agent: false });
    const timer = setTimeout(() => {
      timedOut = true;
      outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      const done = () => finish({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks) });
      incoming.on('end', done);
      // The service may close right after a refusal while the body is still being sent: the answer stands.
      incoming.on('error', done);
      incoming.on('aborted', done);
    });
    const refusableUnread = request.body !== undefined || headBytes(request) > MAX_HEADER_BYTES;
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      finish({ status: timedOut || !refusableUnread ? 'no answer' : 'closed', headers: {}, body: Buffer.alloc(0), error: error.code ?? error.message }),
    );
    outgoing.end(request.body);
  });
}

/** About the size of a request's head on the wire: its request line and headers. */
function headBytes(request: FuzzRequest): number {
  const headers = Object.entries(request.headers).reduce((size, [name, value]) => size + name.length + String(value).length + 4, 0);
  return request.method.length + request.url.length + 12 + headers;
}
