import type { IncomingMessage } from 'node:http';
import type { Response } from 'superagent';

/** A supertest parser that keeps an answer's body as text, whatever its type (a signed note, a proof file). */
export function textBody(res: Response, done: (error: Error | null, body: string) => void): void {
  // In Node, superagent hands a parser the response stream itself.
  const stream = res as unknown as IncomingMessage;
  let body = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (body += chunk));
  stream.on('end', () => done(null, body));
}

/** A supertest parser that keeps an answer's body as bytes (a PDF, a recording). */
export function binaryBody(res: Response, done: (error: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as IncomingMessage;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}
