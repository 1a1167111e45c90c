import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupAddress } from 'node:dns';

export interface PostAnswer {
  status: number;
  retryAfter: string | null;
}

/**
 * POSTs `body` to `url`, connecting to `address` (already resolved and
 * checked) rather than resolving the name again: between a check and a
 * second lookup the name could be pointed elsewhere (DNS rebinding). TLS
 * still verifies the certificate against the URL's host name. Redirects are
 * not followed; the answer's body is discarded.
 */
export function postToAddress(url: string, address: LookupAddress, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<PostAnswer> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal,
        lookup: (_hostname, options, callback) => {
          // Node asks for all addresses when autoSelectFamily is on, and for one otherwise.
          if ((options as { all?: boolean }).all) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, [address]);
          else callback(null, address.address, address.family);
        },
      },
      (answer) => {
        answer.resume();
        answer.on('error', reject);
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, retryAfter: headerValue(answer.headers['retry-after']) }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function headerValue(value: string | string[] | undefined): string | null {
  return value === undefined ? null : Array.isArray(value) ? value[0] : value;
}
