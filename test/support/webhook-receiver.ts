import { IncomingHttpHeaders, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { waitUntil } from './api-app';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export type Responder = (request: ReceivedWebhook, index: number) => { status: number; headers?: Record<string, string> };

/** A real HTTP receiver on loopback: records every request, answers as `respond` says (200 by default). */
export async function startWebhookReceiver(respond: Responder = () => ({ status: 200 })) {
  const received: ReceivedWebhook[] = [];
  let responder = respond;
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const webhook = { headers: request.headers, body, receivedAt: Date.now() };
      received.push(webhook);
      const { status, headers } = responder(webhook, received.length - 1);
      response.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    respondWith(next: Responder) {
      responder = next;
    },
    async waitForCount(count: number, timeoutMs = 15_000) {
      await waitUntil(() => received.length >= count, timeoutMs);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
