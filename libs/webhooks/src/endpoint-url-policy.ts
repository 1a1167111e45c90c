import { promises as dns, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { fieldRefused } from '@ledger/platform';

/**
 * Where deliveries may go. An endpoint URL is chosen by the integrator and
 * called from inside our network, so it is a server-side request forgery
 * vector: in production it must be https and must not name an internal
 * address, and every delivery checks again what the name resolves to now.
 */

/** Long enough for any real endpoint; it is stored and listed back. */
const MAX_URL_LENGTH = 2048;

/** Addresses that are not a public internet host. IPv4 rules also match their IPv4-mapped IPv6 form (::ffff:a.b.c.d). */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // unspecified, "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12], // private
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking, used inside some networks
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified (::), loopback (::1) and the deprecated IPv4-compatible form, which embeds any IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Names that only ever mean a host of the local network (RFC 6761, RFC 6762, and the `.internal` of cloud resolvers). */
const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal'];

/** True for an address deliveries must not reach, and for anything that is not an IP address (fail closed). */
export function isForbiddenAddress(ip: string): boolean {
  const family = isIP(ip);
  // A zone id (fe80::1%eth0) scopes an address to one of our own interfaces.
  if (family === 0 || ip.includes('%')) return true;
  return FORBIDDEN.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The normalized URL an endpoint may be registered with, or a
 * VALIDATION_ERROR on `url` with reason `invalid_url`, `https_required` or
 * `private_address_not_allowed`. Outside production, plain http is allowed
 * to loopback so a receiver can run on a developer's machine.
 */
export function checkEndpointUrl(url: string, { production }: { production: boolean }): string {
  const parsed = parseEndpointUrl(url);
  const host = hostOf(parsed);
  const localHttp = !production && parsed.protocol === 'http:' && isLoopbackHost(host);
  if (parsed.protocol !== 'https:' && !localHttp) {
    throw fieldRefused('url', 'https_required', production ? 'A webhook endpoint must use https.' : 'A webhook endpoint must use https; plain http is allowed only to localhost.');
  }
  if (production && isInternalHost(host)) {
    throw fieldRefused('url', 'private_address_not_allowed', 'A webhook endpoint must be a public internet host, not a private, loopback or local-network address or name.');
  }
  return parsed.href;
}

export type AddressLookup = (hostname: string, options: { all: true }) => Promise<LookupAddress[]>;

/**
 * Every address the endpoint's host resolves to now. In production one
 * forbidden address refuses the delivery (a plain Error whose message starts
 * `forbidden_address`): a name registered as public may since have been
 * pointed inside (DNS rebinding), and which of its addresses a client
 * connects to is not ours to choose.
 */
export async function resolveDeliveryAddress(url: string, { production, lookup = dns.lookup }: { production: boolean; lookup?: AddressLookup }): Promise<LookupAddress[]> {
  const addresses = await lookup(hostOf(new URL(url)), { all: true });
  if (addresses.length === 0) throw new Error("the endpoint's host has no address");
  if (production && addresses.some((a) => isForbiddenAddress(a.address))) {
    throw new Error("forbidden_address: the endpoint's host resolves to an address deliveries may not reach");
  }
  return addresses;
}

function parseEndpointUrl(url: string): URL {
  // The URL parser silently drops tabs and newlines and trims spaces: what is registered must be what was sent.
  const invalid = (detail: string) => fieldRefused('url', 'invalid_url', detail);
  if (url.length > MAX_URL_LENGTH) throw invalid(`A webhook endpoint URL has at most ${MAX_URL_LENGTH} characters.`);
  if (/[\u0000-\u0020\u007f]/.test(url)) throw invalid('A webhook endpoint URL contains no spaces or control characters.');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('A webhook endpoint must be an absolute URL.');
  }
  // Credentials would be stored and listed back in clear; the signature authenticates us instead.
  if (parsed.username !== '' || parsed.password !== '') throw invalid('A webhook endpoint URL carries no credentials.');
  // A fragment is never sent in a request, so one can only be a mistake. The parser keeps an empty one only in href.
  if (parsed.href.includes('#')) throw invalid('A webhook endpoint URL has no fragment.');
  return parsed;
}

/** The host as compared and resolved: without IPv6 brackets or the trailing dot of a fully qualified name. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

function isLoopbackHost(host: string): boolean {
  const family = isIP(host);
  return family === 0 ? host === 'localhost' : LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

function isInternalHost(host: string): boolean {
  if (isIP(host) !== 0) return isForbiddenAddress(host);
  // A name of one label is local: localhost, or a name completed with the search domains of our own network.
  return !host.includes('.') || INTERNAL_SUFFIXES.some((suffix) => host.endsWith(suffix));
}
