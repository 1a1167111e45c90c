import type { LookupAddress } from 'node:dns';
import { DomainError } from '@ledger/platform';
import { refusalOf } from '@ledger/platform/testing';
import { AddressLookup, checkEndpointUrl, isForbiddenAddress, resolveDeliveryAddress } from './endpoint-url-policy';

const production = { production: true };
const development = { production: false };

function expectRefused(url: string, options: { production: boolean }, reason: string): void {
  const refusal = refusalOf(() => checkEndpointUrl(url, options));
  expect({ url, code: refusal.code, reason: refusal.reason, errors: refusal.errors }).toEqual({ url, code: 'VALIDATION_ERROR', reason, errors: [{ field: 'url', reason }] });
}

describe('checkEndpointUrl', () => {
  it('returns the normalized URL of a public https endpoint', () => {
    for (const options of [production, development]) {
      expect(checkEndpointUrl('HTTPS://Hooks.Example.COM:443/a/../notify?x=1', options)).toBe('https://hooks.example.com/notify?x=1');
      expect(checkEndpointUrl('https://hooks.example.com:8443', options)).toBe('https://hooks.example.com:8443/');
    }
  });

  it('refuses what is not an absolute URL, carries credentials or a fragment, or has blanks the parser would drop', () => {
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
      for (const options of [production, development]) expectRefused(url, options, 'invalid_url');
    }
  });

  it('refuses a URL longer than 2048 characters', () => {
    const base = 'https://hooks.example.com/';
    expect(checkEndpointUrl(base + 'a'.repeat(2048 - base.length), production)).toHaveLength(2048);
    expectRefused(base + 'a'.repeat(2049 - base.length), production, 'invalid_url');
  });

  it('never puts the submitted URL or its credentials in the detail', () => {
    const refusal = refusalOf(() => checkEndpointUrl('https://user:hunter2@hooks.example.com/', production));
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal.detail).not.toMatch(/hunter2|hooks\.example/);
  });

  it('requires https in production, even to loopback', () => {
    for (const url of ['http://hooks.example.com/', 'http://localhost:3000/hook', 'http://127.0.0.1/', 'http://[::1]/', 'ftp://hooks.example.com/', 'ws://hooks.example.com/']) {
      expectRefused(url, production, 'https_required');
    }
  });

  it('outside production allows plain http to localhost, 127.0.0.0/8 and ::1 only', () => {
    expect(checkEndpointUrl('http://localhost:3000/hook', development)).toBe('http://localhost:3000/hook');
    expect(checkEndpointUrl('http://LOCALHOST.:3000/hook', development)).toBe('http://localhost.:3000/hook');
    expect(checkEndpointUrl('http://127.0.0.1:8080/', development)).toBe('http://127.0.0.1:8080/');
    expect(checkEndpointUrl('http://127.255.10.1/', development)).toBe('http://127.255.10.1/');
    expect(checkEndpointUrl('http://[::1]:8080/', development)).toBe('http://[::1]:8080/');
    for (const url of ['http://hooks.example.com/', 'http://10.0.0.1/', 'http://192.168.1.10/', 'http://api.localhost/', 'http://localhost.example.com/', 'http://128.0.0.1/', 'ftp://localhost/']) {
      expectRefused(url, development, 'https_required');
    }
  });

  it('outside production allows https to private addresses and local names', () => {
    for (const url of ['https://10.0.0.5/hook', 'https://localhost/hook', 'https://receiver.internal/hook', 'https://receiver/hook']) {
      expect(checkEndpointUrl(url, development)).toBe(url);
    }
  });

  it('in production refuses literal private, loopback, link-local, unspecified, CGNAT and multicast addresses, in any notation', () => {
    for (const host of [
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '127.0.0.1',
      '127.8.9.10',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '100.127.255.255',
      '224.0.0.1',
      '255.255.255.255',
      '[::1]',
      '[::]',
      '[fc00::1]',
      '[fd12:3456::1]',
      '[fe80::1]',
      '[febf::1]',
      '[ff02::1]',
      '[::ffff:10.0.0.1]',
      '[::ffff:169.254.169.254]',
      '[::ffff:7f00:1]',
      '2130706433', // 127.0.0.1 as one number
      '0x7f.1', // 127.0.0.1 in hex shorthand
      '0300.0250.0.1', // 192.168.0.1 in octal
      '127.0.0.1.', // trailing dot
    ]) {
      expectRefused(`https://${host}/hook`, production, 'private_address_not_allowed');
    }
  });

  it('in production refuses local names: localhost, *.localhost, *.local, *.internal and names of one label', () => {
    for (const host of ['localhost', 'LOCALHOST.', 'api.localhost', 'printer.local', 'metadata.google.internal', 'receiver.internal.', 'intranet']) {
      expectRefused(`https://${host}/hook`, production, 'private_address_not_allowed');
    }
  });

  it('in production accepts public addresses next to the refused ranges and names that only contain a local word', () => {
    for (const host of [
      '8.8.8.8',
      '11.0.0.1',
      '172.15.255.255',
      '172.32.0.1',
      '192.169.0.1',
      '100.63.255.255',
      '100.128.0.1',
      '169.253.255.255',
      '126.255.255.255',
      '223.255.255.255',
      '[2001:4860:4860::8888]',
      '[::ffff:8.8.8.8]',
      'local.example.com',
      'internal.example.com',
      'localhost.example.com',
      'example.localhost.com',
    ]) {
      expect(() => checkEndpointUrl(`https://${host}/hook`, production)).not.toThrow();
    }
  });

  it('checks the scheme before the address', () => {
    expectRefused('http://10.0.0.1/', production, 'https_required');
  });
});

describe('isForbiddenAddress', () => {
  it('is true for every class deliveries must not reach, IPv4-mapped forms included', () => {
    for (const ip of [
      '10.0.0.0',
      '10.255.255.255',
      '172.16.0.0',
      '172.31.255.255',
      '192.168.0.0',
      '192.168.255.255',
      '127.0.0.1',
      '127.255.255.255',
      '169.254.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '0.1.2.3',
      '100.64.0.0',
      '100.127.255.255',
      '224.0.0.1',
      '239.255.255.255',
      '240.0.0.1',
      '255.255.255.255',
      '198.18.0.1',
      '198.19.255.255',
      '::',
      '::1',
      '::7f00:1',
      'fc00::',
      'fdff:ffff::1',
      'fe80::1',
      'febf:ffff::1',
      'fec0::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.1.2.3',
      '::ffff:a9fe:a9fe',
      '::ffff:100.64.0.1',
    ]) {
      expect({ ip, forbidden: isForbiddenAddress(ip) }).toEqual({ ip, forbidden: true });
    }
  });

  it('is false for public addresses, including those just outside each range', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '9.255.255.255',
      '11.0.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.167.255.255',
      '192.169.0.0',
      '126.255.255.255',
      '128.0.0.0',
      '169.253.255.255',
      '169.255.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.255',
      '2001:4860:4860::8888',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
    ]) {
      expect({ ip, forbidden: isForbiddenAddress(ip) }).toEqual({ ip, forbidden: false });
    }
  });

  it('fails closed on what is not a plain IP address, and on a scoped one', () => {
    for (const value of ['', 'example.com', '127.0.0.1:80', '[::1]', '8.8.8', 'fe80::1%eth0', '2001:4860:4860::8888%1']) {
      expect({ value, forbidden: isForbiddenAddress(value) }).toEqual({ value, forbidden: true });
    }
  });
});

describe('resolveDeliveryAddress', () => {
  const publicAddresses: LookupAddress[] = [
    { address: '93.184.216.34', family: 4 },
    { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
  ];
  const answering = (addresses: LookupAddress[]) => jest.fn<ReturnType<AddressLookup>, Parameters<AddressLookup>>().mockResolvedValue(addresses);

  it('asks for every address of the bare host name', async () => {
    const lookup = answering(publicAddresses);
    await expect(resolveDeliveryAddress('https://Hooks.Example.com.:8443/notify?x=1', { production: true, lookup })).resolves.toEqual(publicAddresses);
    expect(lookup).toHaveBeenCalledWith('hooks.example.com', { all: true });

    const literal = answering([{ address: '2606:4700:4700::1111', family: 6 }]);
    await resolveDeliveryAddress('https://[2606:4700:4700::1111]/', { production: true, lookup: literal });
    expect(literal).toHaveBeenCalledWith('2606:4700:4700::1111', { all: true });
  });

  it('in production refuses the delivery when any resolved address is forbidden (DNS rebinding)', async () => {
    for (const addresses of [[{ address: '10.0.0.7', family: 4 }], [...publicAddresses, { address: '169.254.169.254', family: 4 }], [{ address: '::ffff:127.0.0.1', family: 6 }]]) {
      const refusal = resolveDeliveryAddress('https://hooks.example.com/', { production: true, lookup: answering(addresses) });
      await expect(refusal).rejects.toThrow(/^forbidden_address/);
      await expect(refusal).rejects.not.toBeInstanceOf(DomainError);
    }
  });

  it('outside production returns forbidden addresses as resolved', async () => {
    const local = [{ address: '127.0.0.1', family: 4 }];
    await expect(resolveDeliveryAddress('http://localhost:3000/', { production: false, lookup: answering(local) })).resolves.toEqual(local);
  });

  it('fails when the host has no address, and passes a lookup failure on', async () => {
    await expect(resolveDeliveryAddress('https://hooks.example.com/', { production: true, lookup: answering([]) })).rejects.toThrow(/no address/);
    const failing = jest.fn<ReturnType<AddressLookup>, Parameters<AddressLookup>>().mockRejectedValue(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    await expect(resolveDeliveryAddress('https://hooks.example.com/', { production: true, lookup: failing })).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it("uses the system resolver by default (an IP literal is answered without a DNS query)", async () => {
    await expect(resolveDeliveryAddress('https://127.0.0.1/', { production: true })).rejects.toThrow(/^forbidden_address/);
    await expect(resolveDeliveryAddress('https://8.8.8.8/', { production: true })).resolves.toEqual([{ address: '8.8.8.8', family: 4 }]);
  });
});
