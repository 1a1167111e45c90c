import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { fieldRefused } from '@ledger/platform';

/**
 * Where deliveries may go. An endpoint URL is chosen by the integrator and
 * called from inside our network, so it is a server-side request forgery
 * vector: it must be https to a public host, checked against what its name
 * resolves to at registration and again on every delivery, and on an allowed
 * port (443 unless LEDGER_WEBHOOK_ALLOWED_PORTS says otherwise), so that it
 * cannot probe or talk to other services of a public host (SMTP, a
 * database, an admin console). Private networks open only with
 * LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (tests, a developer's machine),
 * never as a side effect of NODE_ENV, and then on any port.
 */

export type AddressLookup = (hostname: string, options: { all: true }) => Promise<LookupAddress[]>;

export interface EgressPolicy {
  /** LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: every address allowed, and plain http to loopback. */
  allowPrivateNetworks: boolean;
  /** LEDGER_WEBHOOK_ALLOWED_PORTS: the ports an endpoint on a public host may use; DEFAULT_WEBHOOK_PORTS when absent. */
  allowedPorts?: readonly number[];
  /** How names are resolved; the system resolver by default. */
  lookup?: AddressLookup;
}

/** Why the policy refuses a target: the `reason` of the 400 at registration, the cause of a refused delivery. */
export type EgressRefusal = 'https_required' | 'private_address_not_allowed' | 'port_not_allowed';

/** The ports of a public endpoint unless LEDGER_WEBHOOK_ALLOWED_PORTS names others: https's own. */
export const DEFAULT_WEBHOOK_PORTS: readonly number[] = [443];

/** A delivery the policy refused before connecting: the endpoint's host now resolves inside, or the policy changed since registration. */
export class EgressRefused extends Error {
  constructor(readonly reason: EgressRefusal) {
    super(`the egress policy refuses this target: ${reason}`);
  }
}

const systemLookup: AddressLookup = (hostname, options) => dns.lookup(hostname, options);

/** Long enough for any real endpoint; it is stored and listed back. */
const MAX_URL_LENGTH = 2048;

/**
 * Names that only ever mean a host of a local network or a cloud's metadata
 * service (`metadata.google.internal`), whatever a resolver answers for them:
 * RFC 6761, RFC 6762, RFC 8375 and the `.internal` of cloud resolvers. A name
 * of one label (`metadata`, `instance-data`, `intranet`) is completed with
 * our own network's search domains.
 */
const LOCAL_NAME_SUFFIXES = ['.localhost', '.local', '.localdomain', '.internal', '.home.arpa'];

/**
 * True for a public unicast address. ipaddr.js names every special range
 * (private, loopback, link-local, unique-local, CGNAT, multicast, reserved
 * and documentation, 192.0.0.0/24, benchmarking...), so anything it does not
 * call `unicast` is refused; an IPv6 address that carries an IPv4 address to
 * an IPv4 host is judged by that host. Anything that is not a plain IP
 * address is not public (fail closed).
 */
export function isPublicAddress(ip: string): boolean {
  // A zone id (fe80::1%eth0) scopes an address to one of our own interfaces.
  if (isIP(ip) === 0 || ip.includes('%')) return false;
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv4') return address.range() === 'unicast';
  const embedded = embeddedIPv4(address as ipaddr.IPv6);
  return embedded ? embedded.every((ipv4) => ipv4.range() === 'unicast') : address.range() === 'unicast';
}

/**
 * The IPv4 hosts an IPv6 address reaches through a translator or a tunnel
 * (which ipaddr.js classifies as a range of its own, public or not the IPv4
 * behind it), or null for a plain IPv6 address.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const bytes = address.toByteArray();
  const ipv4At = (offset: number, mask = 0) => new ipaddr.IPv4(bytes.slice(offset, offset + 4).map((byte) => byte ^ mask));
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d, IPv4-translated
    case 'rfc6052': // NAT64: 64:ff9b::/96, and 64:ff9b:1::/48 in the /96 form DNS64 synthesizes
      return [ipv4At(12)];
    case '6to4': // 2002:aabb:ccdd::/48
      return [ipv4At(2)];
    case 'teredo': // 2001:0:<server>:<flags>:<port>:<client, every bit inverted>
      return [ipv4At(4), ipv4At(12, 0xff)];
    default:
      // The deprecated IPv4-compatible ::a.b.c.d, which ipaddr.js calls unicast (:: and ::1 have ranges of their own).
      return address.range() === 'unicast' && bytes.slice(0, 12).every((byte) => byte === 0) ? [ipv4At(12)] : null;
  }
}

/**
 * The normalized URL an endpoint may be registered with, or a
 * VALIDATION_ERROR on `url` with reason `invalid_url`, `https_required`,
 * `private_address_not_allowed`, `port_not_allowed` or `host_not_resolved`. A name is resolved
 * and each of its addresses checked, unless private networks are allowed
 * (then no address is refused).
 */
export async function checkEndpointUrl(url: string, policy: EgressPolicy): Promise<string> {
  const parsed = parseEndpointUrl(url);
  const host = hostOf(parsed);
  refuseAsField(refusalOf(parsed, [], policy));
  if (!policy.allowPrivateNetworks && isIP(host) === 0) {
    let addresses: LookupAddress[];
    try {
      addresses = await (policy.lookup ?? systemLookup)(host, { all: true });
    } catch {
      addresses = [];
    }
    // A name that resolves to nothing cannot be checked; it can be registered once it resolves.
    if (addresses.length === 0) throw fieldRefused('url', 'host_not_resolved', "The webhook endpoint's host name does not resolve to an address.");
    refuseAsField(refusalOf(parsed, addresses.map((a) => a.address), policy));
  }
  return parsed.href;
}

/**
 * Every address the endpoint's host resolves to now, once the policy allows
 * them all; else EgressRefused. Checked on every delivery: a name registered
 * as public may since have been pointed inside (DNS rebinding), and which of
 * its addresses a client connects to is not ours to choose.
 */
export async function resolveDeliveryAddresses(url: string, policy: EgressPolicy): Promise<LookupAddress[]> {
  const parsed = new URL(url);
  const addresses = await (policy.lookup ?? systemLookup)(hostOf(parsed), { all: true });
  if (addresses.length === 0) throw new Error("the endpoint's host has no address");
  const refusal = refusalOf(parsed, addresses.map((a) => a.address), policy);
  if (refusal) throw new EgressRefused(refusal);
  return addresses;
}

/** The one rule, at registration and at delivery: why the policy refuses `url` whose host resolved to `addresses` (a literal address is checked itself), or null. */
function refusalOf(url: URL, addresses: readonly string[], policy: EgressPolicy): EgressRefusal | null {
  const host = hostOf(url);
  // Plain http only to this machine, where a developer's receiver has no certificate.
  const localHttp = policy.allowPrivateNetworks && url.protocol === 'http:' && isLoopbackHost(host);
  if (url.protocol !== 'https:' && !localHttp) return 'https_required';
  if (policy.allowPrivateNetworks) return null;
  const literal = isIP(host) !== 0;
  if (!literal && isLocalName(host)) return 'private_address_not_allowed';
  if (![...(literal ? [host] : []), ...addresses].every(isPublicAddress)) return 'private_address_not_allowed';
  // The URL parser leaves the port empty when it is the scheme's default, 443 for the https required here.
  return (policy.allowedPorts ?? DEFAULT_WEBHOOK_PORTS).includes(url.port === '' ? 443 : Number(url.port)) ? null : 'port_not_allowed';
}

function refuseAsField(refusal: EgressRefusal | null): void {
  if (refusal === 'https_required') throw fieldRefused('url', refusal, 'A webhook endpoint must use https.');
  if (refusal === 'private_address_not_allowed') {
    throw fieldRefused('url', refusal, 'A webhook endpoint must be a public internet host, not a private, loopback, link-local, reserved or local-network address or name.');
  }
  if (refusal === 'port_not_allowed') throw fieldRefused('url', refusal, "A webhook endpoint's port must be 443, or one the operator allows with LEDGER_WEBHOOK_ALLOWED_PORTS.");
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
  return isIP(host) === 0 ? host === 'localhost' : ipaddr.parse(host).range() === 'loopback';
}

function isLocalName(host: string): boolean {
  return !host.includes('.') || LOCAL_NAME_SUFFIXES.some((suffix) => host.endsWith(suffix));
}
