import { ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logIdentity } from '@ledger/ledger-log';
import { buildGoProgram } from '../libs/transparency/test/go';
import { ApiApp, startApiApp } from './support/api-app';
import { textBody } from './support/text-body';
import { TestEnvironment, testEnvironment } from './support/environment';
import { ensureBuilt, runCli } from './support/processes';
import { redecConsents } from './support/redec-consents';

// Decision 0058 and 0059: the service sends each new checkpoint to the
// witnesses of LEDGER_WITNESSES (here `ledger witness serve`, as a bank's
// auditor would run it), keeps their cosignatures and serves them with the
// checkpoint, which Go checks; a ledger that forks the history the witness
// cosigned (same key and origin, another tree) is refused, counted in
// ledger_witness_refusals_total and logged as an error.
/** pino's number for the level `error`. */
const PINO_ERROR = 50;

describe('witnesses of the ledger', () => {
  const SLOW = 180_000;
  const MAIN = join(__dirname, '..', 'dist', 'apps', 'cli', 'src', 'main.js');
  const ORIGIN = 'ledger.test/consent-ledger';
  const SIGNING_KEY = randomBytes(32).toString('hex');
  const directory = mkdtempSync(join(tmpdir(), 'ledger-witnessed-'));
  const env = { PATH: process.env.PATH ?? '' };

  let witness: ChildProcessWithoutNullStreams;
  let witnessUrl: string;
  let witnessKey: string;
  let go: string;
  const environments: TestEnvironment[] = [];
  const apps: ApiApp[] = [];

  /** A service on its own ledger, signing as ORIGIN with SIGNING_KEY, witnessed by the witness, checkpointing every 200 ms. */
  async function witnessedLedger(): Promise<{ api: ApiApp; apiKey: string }> {
    const environment = testEnvironment({ LEDGER_LOG_SIGNING_KEY: SIGNING_KEY, LEDGER_LOG_ORIGIN: ORIGIN, LEDGER_WORKERS: 'external' });
    environments.push(environment);
    const api = await startApiApp(environment, { LEDGER_WITNESSES: `${witnessKey}@${witnessUrl}`, LEDGER_CHECKPOINT_INTERVAL_MS: '200', LOG_LEVEL: 'info' });
    apps.push(api);
    const { apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert', 'consent:audit']);
    await redecConsents(api, apiKey).grant();
    return { api, apiKey };
  }

  const checkpointOf = async (api: ApiApp, apiKey: string) =>
    (
      await api.http
        .get('/v1/ledger/checkpoint')
        .set('Authorization', `Bearer ${apiKey}`)
        .buffer(true)
        .parse(textBody)
    ).body as string;

  async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  beforeAll(async () => {
    ensureBuilt();
    go = buildGoProgram('go-verifier');
    const keyFile = join(directory, 'witness.key');
    witnessKey = (await runCli(['witness', 'key', '--key-file', keyFile, '--name', 'auditor.test/w1'], env)).json.verifierKey;
    const logKey = logIdentity({ origin: ORIGIN, signingKey: Buffer.from(SIGNING_KEY, 'hex') }).verifierKey;
    witness = spawn(process.execPath, [MAIN, 'witness', 'serve', '--port', '0', '--log-vkey', logKey, '--state', join(directory, 'state'), '--key-file', keyFile, '--name', 'auditor.test/w1'], { env });
    witnessUrl = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      witness.stdout.on('data', (d) => {
        stdout += d;
        if (stdout.includes('\n')) resolve(JSON.parse(stdout.slice(0, stdout.indexOf('\n'))).listening);
      });
      witness.on('exit', (code) => reject(new Error(`the witness exited with ${code}`)));
    });
  }, SLOW);
  afterAll(async () => {
    for (const api of apps) await api.close();
    for (const environment of environments) await environment.dispose();
    witness?.kill('SIGTERM');
  });

  it('has each new checkpoint cosigned by the witness and serves the cosignature, which Go checks', async () => {
    const { api, apiKey } = await witnessedLedger();
    const cosigned = await until('a cosigned checkpoint', async () => {
      const note = await checkpointOf(api, apiKey);
      return note.includes('— auditor.test/w1 ') ? note : undefined;
    });
    const vkey = logIdentity({ origin: ORIGIN, signingKey: Buffer.from(SIGNING_KEY, 'hex') }).verifierKey;
    const checked = execFileSync(go, { input: JSON.stringify({ vkey, checkpoint: cosigned, records: [], witnesses: [{ vkey: witnessKey }] }) }).toString();
    expect(checked).toMatch(/^verified 0 records in ledger\.test\/consent-ledger at size \d+\ncosigned by auditor\.test\/w1 at \d+\n$/);
    // The ledger grows; the witness cosigns the next checkpoint from the last it cosigned (a consistency proof).
    const [, firstSize] = cosigned.split('\n');
    await redecConsents(api, apiKey).grant();
    await until('a later cosigned checkpoint', async () => {
      const note = await checkpointOf(api, apiKey);
      return Number(note.split('\n')[1]) > Number(firstSize) && note.includes('— auditor.test/w1 ') ? note : undefined;
    });
    expect(api.logs.filter((line) => line.level === PINO_ERROR)).toEqual([]);
  }, SLOW);

  it("has a fork of the witnessed history refused: counted in ledger_witness_refusals_total, logged as an error, never cosigned", async () => {
    // Another ledger with the same key and origin: its tree is not an extension of the one the witness cosigned.
    const { api, apiKey } = await witnessedLedger();
    await redecConsents(api, apiKey).grant();
    await redecConsents(api, apiKey).grant();
    const refusals = await until('a refusal in the metrics', async () => {
      const metrics = (await api.http.get('/metrics')).text;
      const match = /^ledger_witness_refusals_total\{witness="([^"]+)"\} (\d+)$/m.exec(metrics);
      return match && Number(match[2]) >= 1 ? match : undefined;
    });
    expect(refusals[1]).toBe(witnessKey);
    expect(api.logs).toContainEqual(expect.objectContaining({ level: PINO_ERROR, msg: expect.stringContaining('refused the checkpoint') }));
    expect(await checkpointOf(api, apiKey)).not.toContain('— auditor.test/w1 ');
  }, SLOW);
});
