import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config';

// A random key: production refuses a weak one.
const base = { LEDGER_MASTER_KEY: randomBytes(32).toString('hex'), LEDGER_LOG_SIGNING_KEY: randomBytes(32).toString('hex'), LEDGER_DATA_DIR: '/tmp/ledger-config-spec' };

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

describe('variables that name something', () => {
  it.each(['LEDGER_DATA_DIR', 'HOST', 'REDIS_URL', 'LEDGER_REDIS_PREFIX', 'LOG_LEVEL'])('refuses %s set but empty', (name) => {
    for (const value of ['', '  ']) expect(() => loadConfig({ ...base, [name]: value })).toThrow(new ConfigError(`${name} is set but empty; unset it to use the default, or give it a value`));
  });

  it('takes their defaults when unset', () => {
    const { LEDGER_DATA_DIR: _dataDir, ...keys } = base;
    const config = loadConfig(keys);
    expect([config.dataDir, config.host, config.redis, config.redisPrefix, config.logLevel]).toEqual([join(process.cwd(), 'data'), '127.0.0.1', 'redis://127.0.0.1:6379', 'ledger', 'info']);
  });
});

describe('REDIS_CLUSTER_NODES', () => {
  it('names a Redis Cluster by host:port pairs, IPv6 addresses in brackets, in place of REDIS_URL', () => {
    expect(loadConfig({ ...base, REDIS_CLUSTER_NODES: 'redis-1:6379, 10.0.0.2:7000,[::1]:7001' }).redis).toEqual({
      clusterNodes: [
        { host: 'redis-1', port: 6379 },
        { host: '10.0.0.2', port: 7000 },
        { host: '::1', port: 7001 },
      ],
    });
    expect(loadConfig({ ...base, REDIS_URL: 'redis://redis:6379' }).redis).toBe('redis://redis:6379');
  });

  it('refuses a list that is not host:port pairs, a port out of range, and REDIS_URL beside it', () => {
    for (const value of ['redis-1', 'redis-1:', 'redis-1:6379:1', '::1:7000', 'redis-1:70000']) expect(() => loadConfig({ ...base, REDIS_CLUSTER_NODES: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, REDIS_CLUSTER_NODES: '  ' })).toThrow(new ConfigError('REDIS_CLUSTER_NODES is set but empty; unset it to use the default, or give it a value'));
    expect(() => loadConfig({ ...base, REDIS_CLUSTER_NODES: 'redis-1:6379', REDIS_URL: 'redis://redis:6379' })).toThrow(
      new ConfigError('set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both'),
    );
  });

  it('keeps braces out of LEDGER_REDIS_PREFIX, where they would name the hash tags of a cluster', () => {
    for (const prefix of ['{ledger}', 'bank:{a', 'b}']) expect(() => loadConfig({ ...base, LEDGER_REDIS_PREFIX: prefix })).toThrow(new ConfigError('LEDGER_REDIS_PREFIX must not hold "{" or "}"'));
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

describe('LEDGER_MAX_BODY_BYTES_IN_FLIGHT', () => {
  it('defaults to 64 MiB and takes a positive integer, refusing anything else', () => {
    expect(loadConfig({ ...base }).maxBodyBytesInFlight).toBe(64 * 1024 * 1024);
    expect(loadConfig({ ...base, LEDGER_MAX_BODY_BYTES_IN_FLIGHT: '33554432' }).maxBodyBytesInFlight).toBe(33_554_432);
    for (const value of ['0', '-5', '1.5', 'much', '']) expect(() => loadConfig({ ...base, LEDGER_MAX_BODY_BYTES_IN_FLIGHT: value })).toThrow('LEDGER_MAX_BODY_BYTES_IN_FLIGHT');
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

describe('DATABASE_URL', () => {
  it('takes a postgres:// or postgresql:// URL, unset or empty meaning none', () => {
    expect(loadConfig({ ...base }).databaseUrl).toBeUndefined();
    expect(loadConfig({ ...base, DATABASE_URL: '' }).databaseUrl).toBeUndefined();
    expect(loadConfig({ ...base, DATABASE_URL: 'postgres://ledger@db:5432/ledger' }).databaseUrl).toBe('postgres://ledger@db:5432/ledger');
    expect(loadConfig({ ...base, DATABASE_URL: 'postgresql://db/ledger' }).databaseUrl).toBe('postgresql://db/ledger');
  });

  it('refuses another scheme rather than starting on the embedded store', () => {
    for (const value of ['mysql://db/ledger', 'db:5432/ledger', 'sqlite:///tmp/x']) {
      expect(() => loadConfig({ ...base, DATABASE_URL: value })).toThrow(ConfigError);
    }
  });
});

describe('master keys', () => {
  const random = () => randomBytes(32).toString('hex');

  it('refuses a weak LEDGER_MASTER_KEY in production only, saying why without showing it', () => {
    const weak = '00'.repeat(32);
    expect(() => loadConfig({ ...base, NODE_ENV: 'production', LEDGER_MASTER_KEY: weak })).toThrow(
      new ConfigError('LEDGER_MASTER_KEY is refused when NODE_ENV=production: too few distinct bytes (1; a random key has about 30). Generate one with `openssl rand -hex 32`'),
    );
    expect(loadConfig({ ...base, LEDGER_MASTER_KEY: weak }).masterKey).toEqual(Buffer.alloc(32));
    const strong = random();
    expect(loadConfig({ ...base, NODE_ENV: 'production', LEDGER_MASTER_KEY: strong }).masterKey.toString('hex')).toBe(strong);
  });

  it('reads LEDGER_PREVIOUS_MASTER_KEYS as a comma-separated list, weak ones included: they are what a rotation moves away from', () => {
    const previous = [random(), Buffer.alloc(32, 1).toString('base64')];
    const config = loadConfig({ ...base, NODE_ENV: 'production', LEDGER_MASTER_KEY: random(), LEDGER_PREVIOUS_MASTER_KEYS: ` ${previous.join(' , ')} ` });
    expect(config.previousMasterKeys).toEqual([Buffer.from(previous[0], 'hex'), Buffer.alloc(32, 1)]);
    expect(loadConfig({ ...base }).previousMasterKeys).toEqual([]);
    expect(() => loadConfig({ ...base, LEDGER_PREVIOUS_MASTER_KEYS: 'abc' })).toThrow(new ConfigError('LEDGER_PREVIOUS_MASTER_KEYS: a key must be 32 bytes (64 hex characters or base64)'));
  });
});

describe('keys neither set nor on file', () => {
  const unset = { LEDGER_MASTER_KEY: undefined, LEDGER_LOG_SIGNING_KEY: undefined };
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'ledger-config-keys-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('are generated into the data dir (created 0700) outside production, and read from there afterwards', () => {
    const dataDir = join(root, 'data');
    const warnings: string[] = [];
    const config = loadConfig({ ...base, ...unset, LEDGER_DATA_DIR: dataDir }, (m) => warnings.push(m));
    expect(readdirSync(dataDir).sort()).toEqual(['log-signing.key', 'master.key']);
    expect(warnings).toEqual([expect.stringMatching(/LEDGER_MASTER_KEY is not set; generated/), expect.stringMatching(/LEDGER_LOG_SIGNING_KEY is not set; generated/)]);
    expect(loadConfig({ ...base, ...unset, LEDGER_DATA_DIR: dataDir }, (m) => warnings.push(m), { generateKeys: false }).masterKey).toEqual(config.masterKey);
    expect(warnings).toHaveLength(2);
  });

  it('with generateKeys off, leave the data dir as it was and are refused only when used', () => {
    const dataDir = join(root, 'mistyped');
    const config = loadConfig({ ...base, ...unset, LEDGER_DATA_DIR: dataDir }, () => undefined, { generateKeys: false });
    expect(config.logOrigin).toBe('127.0.0.1:3000/consent-ledger');
    expect(() => config.masterKey).toThrow(new ConfigError(`LEDGER_MASTER_KEY is not set and there is no ${join(dataDir, 'master.key')}: set LEDGER_MASTER_KEY to the key the service runs with`));
    expect(() => config.logSigningKey).toThrow(/LEDGER_LOG_SIGNING_KEY is not set/);
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('LEDGER_WEBHOOK_ALLOWED_PORTS', () => {
  it('is unset unless given (the egress policy then allows 443), and takes comma-separated ports', () => {
    expect(loadConfig(base).webhookAllowedPorts).toBeUndefined();
    expect(loadConfig({ ...base, LEDGER_WEBHOOK_ALLOWED_PORTS: '443, 8443' }).webhookAllowedPorts).toEqual([443, 8443]);
  });

  it('refuses anything but port numbers, and an empty list', () => {
    for (const value of ['', ',', '0', '65536', '443,https', '8443.5', '-443']) {
      expect(() => loadConfig({ ...base, LEDGER_WEBHOOK_ALLOWED_PORTS: value })).toThrow(ConfigError);
    }
  });
});

describe('LEDGER_WORKER_METRICS_PORT', () => {
  it('is unset (no port) or a port number', () => {
    expect(loadConfig({ ...base }).workerMetricsPort).toBeUndefined();
    expect(loadConfig({ ...base, LEDGER_WORKER_METRICS_PORT: '9464' }).workerMetricsPort).toBe(9464);
    for (const value of ['0', '65536', 'http', '94.64']) expect(() => loadConfig({ ...base, LEDGER_WORKER_METRICS_PORT: value })).toThrow(ConfigError);
  });
});

describe('the verifiable ledger settings', () => {
  it("names the log after LEDGER_PUBLIC_URL's host unless LEDGER_LOG_ORIGIN says otherwise, and refuses an origin a note cannot carry", () => {
    expect(loadConfig({ ...base, LEDGER_PUBLIC_URL: 'https://consent.bank.example:8443/ledger' }).logOrigin).toBe('consent.bank.example:8443/consent-ledger');
    expect(loadConfig({ ...base, LEDGER_LOG_ORIGIN: 'ledger.bank.example/redec' }).logOrigin).toBe('ledger.bank.example/redec');
    for (const origin of ['two words', 'a+b']) expect(() => loadConfig({ ...base, LEDGER_LOG_ORIGIN: origin })).toThrow(ConfigError);
  });

  it('requires LEDGER_LOG_SIGNING_KEY in production and reads it as hex or base64', () => {
    const key = randomBytes(32);
    const production = { ...base, NODE_ENV: 'production' };
    expect(() => loadConfig({ ...production, LEDGER_LOG_SIGNING_KEY: undefined })).toThrow(/LEDGER_LOG_SIGNING_KEY is required/);
    expect(loadConfig({ ...production, LEDGER_LOG_SIGNING_KEY: key.toString('base64') }).logSigningKey.equals(key)).toBe(true);
    expect(() => loadConfig({ ...production, LEDGER_LOG_SIGNING_KEY: '00'.repeat(32) })).toThrow(/LEDGER_LOG_SIGNING_KEY is refused/);
  });

  it('reads LEDGER_WITNESSES as comma-separated <verifier key>@<url>, and LEDGER_CHECKPOINT_INTERVAL_MS', () => {
    const vkey = 'witness.example+1a2b3c4d+AQ+/=';
    const config = loadConfig({ ...base, LEDGER_WITNESSES: `${vkey}@https://witness.example/, other+00000000+AQ==@http://127.0.0.1:9000`, LEDGER_CHECKPOINT_INTERVAL_MS: '2500' });
    expect(config.witnesses).toEqual([
      { verifierKey: vkey, url: 'https://witness.example' },
      { verifierKey: 'other+00000000+AQ==', url: 'http://127.0.0.1:9000' },
    ]);
    expect(config.checkpointIntervalMs).toBe(2500);
    expect(loadConfig({ ...base }).checkpointIntervalMs).toBe(10_000);
    for (const witnesses of ['https://witness.example', 'not-a-key@https://w.example', `${vkey}@ftp://w.example`]) {
      expect(() => loadConfig({ ...base, LEDGER_WITNESSES: witnesses })).toThrow(ConfigError);
    }
  });
});
