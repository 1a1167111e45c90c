import { ConfigError, loadConfig } from './config';

const base = { LEDGER_MASTER_KEY: 'a'.repeat(64), LEDGER_DATA_DIR: '/tmp/ledger-config-spec' };

describe('LEDGER_PUBLIC_URL', () => {
  it('defaults to the address the service listens on', () => {
    expect(loadConfig({ ...base }).publicUrl).toBe('http://127.0.0.1:3000');
    expect(loadConfig({ ...base, HOST: '::1', PORT: '8080' }).publicUrl).toBe('http://[::1]:8080');
  });

  it('keeps a path prefix without its trailing slash', () => {
    expect(loadConfig({ ...base, LEDGER_PUBLIC_URL: 'https://consent.bank.example/ledger/' }).publicUrl).toBe('https://consent.bank.example/ledger');
  });

  it('refuses what cannot prefix a page URL', () => {
    for (const value of ['consent.bank.example', 'ftp://x.example', 'https://x.example/?a=1', 'https://x.example/#top']) {
      expect(() => loadConfig({ ...base, LEDGER_PUBLIC_URL: value })).toThrow(ConfigError);
    }
  });
});

describe('NODE_ENV', () => {
  it('is unset, empty, development, test or production', () => {
    expect(loadConfig({ ...base }).production).toBe(false);
    for (const value of ['', 'development', 'test']) expect(loadConfig({ ...base, NODE_ENV: value }).production).toBe(false);
    expect(loadConfig({ ...base, NODE_ENV: 'production' }).production).toBe(true);
  });

  it('refuses any other value, naming it, rather than running without production rules', () => {
    for (const value of ['staging', 'prod', 'Production', 'production ', 'dev']) {
      expect(() => loadConfig({ ...base, NODE_ENV: value })).toThrow(new ConfigError(`NODE_ENV must be unset, development, test or production; it is ${JSON.stringify(value)}`));
    }
  });
});

describe('LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS', () => {
  it('opens private networks to webhooks only when exactly `true`, whatever NODE_ENV is', () => {
    for (const NODE_ENV of ['development', 'test', 'production']) {
      expect(loadConfig({ ...base, NODE_ENV, LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).webhookAllowPrivateNetworks).toBe(true);
      expect(loadConfig({ ...base, NODE_ENV }).webhookAllowPrivateNetworks).toBe(false);
      for (const value of ['', 'false', '1', 'yes', 'TRUE', 'True', ' true']) {
        expect(loadConfig({ ...base, NODE_ENV, LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: value }).webhookAllowPrivateNetworks).toBe(false);
      }
    }
  });
});

describe('LEDGER_RATE_LIMIT_PER_MINUTE', () => {
  it('defaults to 60,000 and takes a positive integer', () => {
    expect(loadConfig({ ...base }).rateLimitPerMinute).toBe(60_000);
    expect(loadConfig({ ...base, LEDGER_RATE_LIMIT_PER_MINUTE: '120' }).rateLimitPerMinute).toBe(120);
  });

  it('refuses anything else', () => {
    for (const value of ['0', '-5', '1.5', 'many', '']) {
      expect(() => loadConfig({ ...base, LEDGER_RATE_LIMIT_PER_MINUTE: value })).toThrow(ConfigError);
    }
  });
});
