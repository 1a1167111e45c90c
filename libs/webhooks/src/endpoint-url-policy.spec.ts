import type { LookupAddress } from 'node:dns';
import { DomainError } from '@ledger/platform';
import { AddressLookup, EgressPolicy, EgressRefused, checkEndpointUrl, isPublicAddress, resolveDeliveryAddresses } from './endpoint-url-policy';

const answering = (addresses: LookupAddress[]) => jest.fn<ReturnType<AddressLookup>, Parameters<AddressLookup>>().mockResolvedValue(addresses);
const PUBLIC: LookupAddress[] = [
  { address: '93.184.216.34', family: 4 },
  { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
];
/** Strict, with a resolver that answers public addresses for every name. */
const strict: EgressPolicy = { allowPrivateNetworks: false, lookup: answering(PUBLIC) };
const allowing: EgressPolicy = { allowPrivateNetworks: true, lookup: answering(PUBLIC) };

async function refusalOf(url: string, policy: EgressPolicy): Promise<DomainError> {
  try {
    await checkEndpointUrl(url, policy);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error(`${url} was not refused`);
}

async function expectRefused(url: string, policy: EgressPolicy, reason: string): Promise<void> {
  const refusal = await refusalOf(url, policy);
  expect({ url, code: refusal.code, reason: refusal.reason, errors: refusal.errors }).toEqual({ url, code: 'VALIDATION_ERROR', reason, errors: [{ field: 'url', reason }] });
}

describe('isPublicAddress', () => {
  it('refuses every special IPv4 range ipaddr.js knows, 192.0.0.0/24 and the documentation ranges included', () => {
    for (const ip of [
      '0.0.0.0', '0.1.2.3', // unspecified
      '10.0.0.0', '10.255.255.255', '172.16.0.0', '172.31.255.255', '192.168.0.0', '192.168.255.255', // private
      '127.0.0.1', '127.255.255.255', // loopback
      '169.254.0.1', '169.254.169.254', // link-local, cloud metadata
      '100.64.0.0', '100.127.255.255', '100.100.100.200', // CGNAT, a cloud's metadata service
      '224.0.0.1', '239.255.255.255', // multicast
      '240.0.0.1', '255.255.255.255', // reserved, broadcast
      '192.0.0.8', '192.0.0.170', // IETF protocol assignments
      '192.0.2.1', '198.51.100.7', '203.0.113.9', // documentation
      '198.18.0.1', '198.19.255.255', // benchmarking
      '192.88.99.1', // 6to4 relay anycast
    ]) {
      expect({ ip, public: isPublicAddress(ip) }).toEqual({ ip, public: false });
    }
  });

  it('refuses special IPv6 ranges', () => {
    for (const ip of ['::', '::1', 'fc00::', 'fd00:ec2::254', 'fdff:ffff::1', 'fe80::1', 'febf:ffff::1', 'fec0::1', 'ff02::1', '2001:db8::1', '100::1', '2001:2::1']) {
      expect({ ip, public: isPublicAddress(ip) }).toEqual({ ip, public: false });
    }
  });

  it('judges an IPv6 address that carries an IPv4 host by that host: mapped, compatible, translated, NAT64, 6to4 and Teredo', () => {
    const forms: Array<[string, boolean]> = [
      ['::ffff:127.0.0.1', false],
      ['::ffff:7f00:1', false],
      ['::ffff:a9fe:a9fe', false],
      ['::ffff:8.8.8.8', true],
      ['::7f00:1', false], // IPv4-compatible 127.0.0.1
      ['::a00:1', false],
      ['::808:808', true],
      ['::ffff:0:a00:1', false], // IPv4-translated 10.0.0.1
      ['::ffff:0:808:808', true],
      ['64:ff9b::a9fe:a9fe', false], // NAT64 169.254.169.254
      ['64:ff9b::c0a8:1', false],
      ['64:ff9b::c000:8', false], // 192.0.0.8
      ['64:ff9b::808:808', true],
      ['64:ff9b:1::7f00:1', false], // local-use NAT64 prefix
      ['64:ff9b:1::808:808', true],
      ['2002:a9fe:a9fe::1', false], // 6to4 of 169.254.169.254
      ['2002:c0a8:101::', false],
      ['2002:808:808::1', true],
      ['2001:0:4136:e378:8000:63bf:80ff:fffe', false], // Teredo, client 127.0.0.1 inverted
      ['2001:0:4136:e378:8000:63bf:f5ff:fffe', false], // client 10.0.0.1
      ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', true], // client 8.8.8.8
      ['2001:0:a00:1:8000:63bf:f7f7:f7f7', false], // server 10.0.0.1
    ];
    for (const [ip, expected] of forms) expect({ ip, public: isPublicAddress(ip) }).toEqual({ ip, public: expected });
  });

  it('accepts public addresses, including those just outside each range', () => {
    for (const ip of [
      '8.8.8.8', '1.1.1.1', '9.255.255.255', '11.0.0.0', '172.15.255.255', '172.32.0.0', '192.167.255.255', '192.169.0.0', '126.255.255.255', '128.0.0.0',
      '169.253.255.255', '169.255.0.0', '100.63.255.255', '100.128.0.0', '198.17.255.255', '198.20.0.0', '223.255.255.255', '192.0.1.1',
      '2001:4860:4860::8888', '2606:4700:4700::1111',
    ]) {
      expect({ ip, public: isPublicAddress(ip) }).toEqual({ ip, public: true });
    }
  });

  it('fails closed on what is not a plain IP address, and on a scoped one', () => {
    for (const value of ['', 'example.com', '127.0.0.1:80', '[::1]', '8.8.8', 'fe80::1%eth0', '2001:4860:4860::8888%1']) {
      expect({ value, public: isPublicAddress(value) }).toEqual({ value, public: false });
    }
  });
});

describe('checkEndpointUrl', () => {
  it('returns the normalized URL of a public https endpoint', async () => {
    for (const policy of [{ ...strict, allowedPorts: [443, 8443] }, allowing]) {
      await expect(checkEndpointUrl('HTTPS://Hooks.Example.COM:443/a/../notify?x=1', policy)).resolves.toBe('https://hooks.example.com/notify?x=1');
      await expect(checkEndpointUrl('https://hooks.example.com:8443', policy)).resolves.toBe('https://hooks.example.com:8443/');
    }
  });

  it('refuses what is not an absolute URL, carries credentials or a fragment, or has blanks the parser would drop', async () => {
    for (const url of [
      'hooks.example.com/notify',
      '/notify',
      'https://',
      'https://exa mple.com/',
      'https://user:hunter2@hooks.example.com/',
      'https://user@hooks.example.com/',
      'https://:hunter2@hooks.example.com/',
      'https://hooks.example.com/notify#section',
      'https://hooks.example.com/notify#',
      'https://hooks.exa\tmple.com/',
      'https://hooks.example.com/\n',
      ' https://hooks.example.com/',
      'https://hooks.example.com/\u0000',
    ]) {
      for (const policy of [strict, allowing]) await expectRefused(url, policy, 'invalid_url');
    }
  });

  it('refuses a URL longer than 2048 characters', async () => {
    const base = 'https://hooks.example.com/';
    await expect(checkEndpointUrl(base + 'a'.repeat(2048 - base.length), strict)).resolves.toHaveLength(2048);
    await expectRefused(base + 'a'.repeat(2049 - base.length), strict, 'invalid_url');
  });

  it('never puts the submitted URL or its credentials in the detail', async () => {
    const refusal = await refusalOf('https://user:hunter2@hooks.example.com/', strict);
    expect(refusal.detail).not.toMatch(/hunter2|hooks\.example/);
  });

  it('strict, requires https even to loopback, before resolving anything', async () => {
    const lookup = answering(PUBLIC);
    for (const url of ['http://hooks.example.com/', 'http://localhost:3000/hook', 'http://127.0.0.1/', 'http://[::1]/', 'ftp://hooks.example.com/', 'ws://hooks.example.com/', 'http://10.0.0.1/']) {
      await expectRefused(url, { allowPrivateNetworks: false, lookup }, 'https_required');
    }
    expect(lookup).not.toHaveBeenCalled();
  });

  it('allowing private networks, allows plain http to localhost, 127.0.0.0/8 and ::1 only', async () => {
    await expect(checkEndpointUrl('http://localhost:3000/hook', allowing)).resolves.toBe('http://localhost:3000/hook');
    await expect(checkEndpointUrl('http://LOCALHOST.:3000/hook', allowing)).resolves.toBe('http://localhost.:3000/hook');
    await expect(checkEndpointUrl('http://127.0.0.1:8080/', allowing)).resolves.toBe('http://127.0.0.1:8080/');
    await expect(checkEndpointUrl('http://127.255.10.1/', allowing)).resolves.toBe('http://127.255.10.1/');
    await expect(checkEndpointUrl('http://[::1]:8080/', allowing)).resolves.toBe('http://[::1]:8080/');
    for (const url of ['http://hooks.example.com/', 'http://10.0.0.1/', 'http://192.168.1.10/', 'http://api.localhost/', 'http://localhost.example.com/', 'http://128.0.0.1/', 'ftp://localhost/']) {
      await expectRefused(url, allowing, 'https_required');
    }
  });

  it('allowing private networks, allows https to any address and name without resolving it', async () => {
    const lookup = answering([]);
    for (const url of ['https://10.0.0.5/hook', 'https://localhost/hook', 'https://receiver.internal/hook', 'https://receiver/hook', 'https://169.254.169.254/', 'https://[64:ff9b::a9fe:a9fe]/']) {
      await expect(checkEndpointUrl(url, { allowPrivateNetworks: true, lookup })).resolves.toBe(url);
    }
    expect(lookup).not.toHaveBeenCalled();
  });

  it('strict, refuses literal non-public addresses in any notation the URL parser reads', async () => {
    for (const host of [
      '10.1.2.3', '172.16.0.1', '192.168.1.1', '127.0.0.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '224.0.0.1', '255.255.255.255', '192.0.0.8', '192.0.2.1',
      '[::1]', '[::]', '[fc00::1]', '[fd12:3456::1]', '[fe80::1]', '[ff02::1]', '[2001:db8::1]',
      '[::ffff:10.0.0.1]', '[::ffff:169.254.169.254]', '[::127.0.0.1]', '[64:ff9b::169.254.169.254]', '[64:ff9b:1::10.0.0.1]', '[2002:a9fe:a9fe::]', '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
      '2130706433', // 127.0.0.1 as one number
      '0x7f.1', // 127.0.0.1 in hex shorthand
      '0300.0250.0.1', // 192.168.0.1 in octal
      '127.0.0.1.', // trailing dot
    ]) {
      await expectRefused(`https://${host}/hook`, strict, 'private_address_not_allowed');
    }
  });

  it('strict, refuses local and metadata names without resolving them', async () => {
    const lookup = answering(PUBLIC);
    for (const host of ['localhost', 'LOCALHOST.', 'api.localhost', 'printer.local', 'metadata.google.internal', 'receiver.internal.', 'nas.home.arpa', 'box.localdomain', 'metadata', 'instance-data', 'intranet']) {
      await expectRefused(`https://${host}/hook`, { allowPrivateNetworks: false, lookup }, 'private_address_not_allowed');
    }
    expect(lookup).not.toHaveBeenCalled();
  });

  it('strict, resolves a name and refuses it when any address is not public', async () => {
    for (const addresses of [[{ address: '10.0.0.7', family: 4 }], [...PUBLIC, { address: '169.254.169.254', family: 4 }], [{ address: '64:ff9b::7f00:1', family: 6 }]]) {
      const lookup = answering(addresses);
      await expectRefused('https://hooks.example.com/', { allowPrivateNetworks: false, lookup }, 'private_address_not_allowed');
      expect(lookup).toHaveBeenCalledWith('hooks.example.com', { all: true });
    }
  });

  it('strict, refuses a name that resolves to no address', async () => {
    await expectRefused('https://hooks.example.com/', { allowPrivateNetworks: false, lookup: answering([]) }, 'host_not_resolved');
    const failing = jest.fn<ReturnType<AddressLookup>, Parameters<AddressLookup>>().mockRejectedValue(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    await expectRefused('https://hooks.example.com/', { allowPrivateNetworks: false, lookup: failing }, 'host_not_resolved');
  });

  it('strict, accepts public addresses and names that only contain a local word', async () => {
    for (const host of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '[2001:4860:4860::8888]', '[::ffff:8.8.8.8]', '[64:ff9b::8.8.8.8]', 'local.example.com', 'internal.example.com', 'localhost.example.com', 'example.localhost.com']) {
      await expect(checkEndpointUrl(`https://${host}/hook`, strict)).resolves.toEqual(expect.stringMatching(/^https:\/\//));
    }
  });

  it('strict, allows port 443 alone unless the policy names others; allowing private networks, any port', async () => {
    for (const url of ['https://8.8.8.8:8443/hook', 'https://hooks.example.com:25/hook', 'https://[2001:4860:4860::8888]:6379/']) await expectRefused(url, strict, 'port_not_allowed');
    await expect(checkEndpointUrl('https://8.8.8.8:443/hook', strict)).resolves.toBe('https://8.8.8.8/hook');
    await expect(checkEndpointUrl('https://8.8.8.8:8443/hook', { ...strict, allowedPorts: [443, 8443] })).resolves.toBe('https://8.8.8.8:8443/hook');
    await expectRefused('https://8.8.8.8/hook', { ...strict, allowedPorts: [8443] }, 'port_not_allowed');
    // A private address is refused as such, whatever its port.
    await expectRefused('https://10.0.0.1:8443/hook', strict, 'private_address_not_allowed');
    await expect(checkEndpointUrl('http://127.0.0.1:9/hook', allowing)).resolves.toBe('http://127.0.0.1:9/hook');
  });
});

describe('resolveDeliveryAddresses', () => {
  it('asks for every address of the bare host name', async () => {
    const lookup = answering(PUBLIC);
    await expect(resolveDeliveryAddresses('https://Hooks.Example.com.:8443/notify?x=1', { allowPrivateNetworks: false, allowedPorts: [8443], lookup })).resolves.toEqual(PUBLIC);
    expect(lookup).toHaveBeenCalledWith('hooks.example.com', { all: true });

    const literal = answering([{ address: '2606:4700:4700::1111', family: 6 }]);
    await resolveDeliveryAddresses('https://[2606:4700:4700::1111]/', { allowPrivateNetworks: false, lookup: literal });
    expect(literal).toHaveBeenCalledWith('2606:4700:4700::1111', { all: true });
  });

  it('strict, refuses the delivery when any resolved address is not public (DNS rebinding)', async () => {
    for (const addresses of [[{ address: '10.0.0.7', family: 4 }], [...PUBLIC, { address: '169.254.169.254', family: 4 }], [{ address: '::ffff:127.0.0.1', family: 6 }], [{ address: '2002:7f00:1::', family: 6 }]]) {
      const refusal = resolveDeliveryAddresses('https://hooks.example.com/', { allowPrivateNetworks: false, lookup: answering(addresses) });
      await expect(refusal).rejects.toEqual(new EgressRefused('private_address_not_allowed'));
    }
  });

  it('refuses a port the policy no longer allows', async () => {
    await expect(resolveDeliveryAddresses('https://hooks.example.com:8443/', { allowPrivateNetworks: false, lookup: answering(PUBLIC) })).rejects.toEqual(new EgressRefused('port_not_allowed'));
  });

  it('strict, refuses a target registered while private networks were allowed', async () => {
    const local = answering([{ address: '127.0.0.1', family: 4 }]);
    await expect(resolveDeliveryAddresses('http://localhost:3000/', { allowPrivateNetworks: false, lookup: local })).rejects.toEqual(new EgressRefused('https_required'));
    await expect(resolveDeliveryAddresses('https://localhost:3000/', { allowPrivateNetworks: false, lookup: local })).rejects.toEqual(new EgressRefused('private_address_not_allowed'));
    await expect(resolveDeliveryAddresses('http://localhost:3000/', { allowPrivateNetworks: true, lookup: local })).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('fails when the host has no address, and passes a lookup failure on', async () => {
    await expect(resolveDeliveryAddresses('https://hooks.example.com/', { allowPrivateNetworks: false, lookup: answering([]) })).rejects.toThrow(/no address/);
    const failing = jest.fn<ReturnType<AddressLookup>, Parameters<AddressLookup>>().mockRejectedValue(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    await expect(resolveDeliveryAddresses('https://hooks.example.com/', { allowPrivateNetworks: false, lookup: failing })).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('uses the system resolver by default (an IP literal is answered without a DNS query)', async () => {
    await expect(resolveDeliveryAddresses('https://127.0.0.1/', { allowPrivateNetworks: false })).rejects.toBeInstanceOf(EgressRefused);
    await expect(resolveDeliveryAddresses('https://8.8.8.8/', { allowPrivateNetworks: false })).resolves.toEqual([{ address: '8.8.8.8', family: 4 }]);
  });
});
