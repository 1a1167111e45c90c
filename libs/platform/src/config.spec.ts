import { randomBytes } from 'node:crypto';
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
