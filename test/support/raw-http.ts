import { IncomingHttpHeaders, request } from 'node:http';
import { connect } from 'node:net';

export interface EarlyAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface AnnouncedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** What the Content-Length header announces. */
  contentLength: number;
}

/**
 * Sends only a request's headers, announcing a body that never follows, and
 * resolves with the server's answer: a server that waits for the announced
 * bytes gives none, and the promise rejects after `withinMs`.
 */
export function answerToHeaders(baseUrl: string, sent: AnnouncedRequest, withinMs: number): Promise<EarlyAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${baseUrl}${sent.path}`, {
      method: sent.method,
      headers: { ...sent.headers, 'content-length': String(sent.contentLength) },
      agent: false,
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      reject(new Error(`no answer within ${withinMs} ms to ${sent.method} ${sent.path} announcing ${sent.contentLength} bytes`));
    }, withinMs);
    outgoing.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        clearTimeout(timer);
        outgoing.destroy();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
      });
    });
    outgoing.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    outgoing.flushHeaders();
  });
}

export interface Upload {
  /** The status line the server answered with, if it answered before the connection ended. */
  statusLine: string | undefined;
  /** How many bytes of the body left before the server answered or closed the connection. */
  bodyBytesSent: number;
}

/**
 * Sends a request with its whole body, as a client that does not wait for
 * an early answer does, but stops writing as soon as the server answers or
 * closes the connection. A server that answers and closes while the client
 * is still writing may reset the connection before its answer is read, so
 * the answer is reported only when it arrived.
 */
export function upload(port: number, head: string, body: Buffer, chunkBytes = 64 * 1024): Promise<Upload> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let ended = false;
    let bodyBytesSent = 0;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      ended = true;
      resolve({ statusLine: received ? received.slice(0, received.indexOf('\r\n')) : undefined, bodyBytesSent });
    });
    const writeNext = () => {
      while (!ended && received === '' && bodyBytesSent < body.length) {
        const chunk = body.subarray(bodyBytesSent, bodyBytesSent + chunkBytes);
        bodyBytesSent += chunk.length;
        if (!socket.write(chunk)) {
          socket.once('drain', writeNext);
          return;
        }
      }
    };
    // The status line is all the caller needs: the first bytes of the answer end the exchange.
    socket.on('data', () => socket.destroy());
    socket.once('connect', () => {
      socket.write(head);
      writeNext();
    });
  });
}
