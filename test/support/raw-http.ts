import { IncomingHttpHeaders, request } from 'node:http';

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
