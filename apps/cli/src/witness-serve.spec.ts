import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointText, cosignatureVerifier, ed25519Signer, formatAddCheckpointRequest, parseNote, requestCosignature, signNote } from '@ledger/transparency';
import { memoryTree } from '../../../libs/transparency/test/tree';
import { ensureBuilt, runCli } from '../../../test/support/processes';

const MAIN = join(__dirname, '..', '..', '..', 'dist', 'apps', 'cli', 'src', 'main.js');

/**
 * `ledger witness serve` as operators run it: the built CLI as its own
 * process, with no ledger, Redis or configuration in its environment,
 * answering add-checkpoint over HTTP and keeping its state across a restart.
 */
describe('ledger witness', () => {
  const directory = mkdtempSync(join(tmpdir(), 'ledger-witness-'));
  const keyFile = join(directory, 'witness.key');
  const stateFile = join(directory, 'state.json');
  const log = ed25519Signer('ledger.example/consent-ledger', randomBytes(32));
  const leaves = Array.from({ length: 1000 }, () => randomBytes(48));
  const tree = memoryTree(leaves);
  const fork = memoryTree([...leaves.slice(0, 300), ...Array.from({ length: 700 }, () => randomBytes(48))]);
  const note = (size: number, t = tree) => signNote(checkpointText({ origin: log.name, size, root: t.root(size) }), [log]);
  /** Only PATH: the witness must need nothing of the service's environment. */
  const env = { PATH: process.env.PATH ?? '' };
  let verifierKey: string;

  beforeAll(async () => {
    ensureBuilt();
    const key = await runCli(['witness', 'key', '--key-file', keyFile, '--name', 'witness.example/w1'], env);
    expect({ status: key.status, stderr: key.stderr }).toEqual({ status: 0, stderr: '' });
    verifierKey = key.json.verifierKey;
  }, 300_000);

  /** Starts `witness serve`, resolving with its listening document once it is printed. */
  async function start(): Promise<{ child: ChildProcessWithoutNullStreams; url: string; document: any; stderr: () => string }> {
    const child = spawn(process.execPath, [MAIN, 'witness', 'serve', '--port', '0', '--log-vkey', log.verifierKey, '--state', stateFile, '--key-file', keyFile, '--name', 'witness.example/w1'], {
      env,
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const line = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout.on('data', (d) => {
        stdout += d;
        if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
      });
      child.on('exit', (code) => reject(new Error(`the witness exited with ${code}: ${stdout}${stderr}`)));
    });
    const document = JSON.parse(line);
    return { child, url: document.listening, document, stderr: () => stderr };
  }

  async function stop(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; stdout: string }> {
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    return { code: await exited, stdout };
  }

  const post = (url: string, body: string) => fetch(`${url}/add-checkpoint`, { method: 'POST', body });

  it('prints its verifier key, creating the key file readable by its owner only; the same key again after', async () => {
    expect(verifierKey).toMatch(/^witness\.example\/w1\+[0-9a-f]{8}\+/);
    expect(cosignatureVerifier(verifierKey).name).toBe('witness.example/w1');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect((await runCli(['witness', 'key', '--key-file', keyFile, '--name', 'witness.example/w1'], env)).json).toEqual({ verifierKey });
  });

  it('cosigns a first checkpoint and a consistent extension, refuses a stale old size and a fork, and holds its state across a restart', async () => {
    const first = await start();
    try {
      expect(first.document).toEqual({ listening: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), verifierKey, origin: log.name, size: 0 });
      const witness = { url: first.url, verifierKey };

      const initial = await requestCosignature(witness, { oldSize: 0, proof: [], checkpointNote: note(300) });
      expect(initial).toMatchObject({ outcome: 'cosigned', timestamp: expect.any(Number) });
      expect(Math.abs((initial as { timestamp: number }).timestamp - Date.now() / 1000)).toBeLessThan(120);
      expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toEqual({ origin: log.name, size: 300, root: tree.root(300).toString('base64') });

      expect(await requestCosignature(witness, { oldSize: 300, proof: tree.consistency(300, 777), checkpointNote: note(777) })).toMatchObject({ outcome: 'cosigned' });

      const stale = await post(first.url, formatAddCheckpointRequest({ oldSize: 300, proof: tree.consistency(300, 900), checkpointNote: note(900) }));
      expect([stale.status, stale.headers.get('content-type'), await stale.text()]).toEqual([409, 'text/x.tlog.size', '777\n']);

      const forked = await post(first.url, formatAddCheckpointRequest({ oldSize: 777, proof: fork.consistency(777, 1000), checkpointNote: note(1000, fork) }));
      expect([forked.status, await forked.text()]).toEqual([422, expect.stringContaining('not consistent')]);

      const wrongMethod = await fetch(`${first.url}/add-checkpoint`);
      expect(wrongMethod.status).toBe(405);
      expect((await fetch(`${first.url}/checkpoint`, { method: 'POST', body: '' })).status).toBe(404);
      expect((await post(first.url, `old 777\n\n${'x'.repeat(70 * 1024)}`)).status).toBe(413);
      expect(first.stderr()).toContain('add-checkpoint 422');
    } finally {
      // It printed its one document when it began listening: nothing more on stdout when it stops.
      expect(await stop(first.child)).toEqual({ code: 0, stdout: '' });
    }

    const second = await start();
    try {
      expect(second.document.size).toBe(777);
      const witness = { url: second.url, verifierKey };
      expect(await requestCosignature(witness, { oldSize: 0, proof: [], checkpointNote: note(1000, fork) })).toEqual({ outcome: 'conflict', witnessSize: 777 });
      const forked = await post(second.url, formatAddCheckpointRequest({ oldSize: 777, proof: fork.consistency(777, 1000), checkpointNote: note(1000, fork) }));
      expect(forked.status).toBe(422);
      const extended = await requestCosignature(witness, { oldSize: 777, proof: tree.consistency(777, 1000), checkpointNote: note(1000) });
      if (extended.outcome !== 'cosigned') throw new Error(`not cosigned: ${JSON.stringify(extended)}`);
      // The cosignature rides on the log's note, as a verifier reads it.
      const cosigned = signNote(parseNote(note(1000)).text, [], [...parseNote(note(1000)).signatures, extended.signature]);
      expect(parseNote(cosigned).signatures.map((s) => s.name)).toEqual([log.name, 'witness.example/w1']);
    } finally {
      await stop(second.child);
    }
    expect(JSON.parse(readFileSync(stateFile, 'utf8')).size).toBe(1000);
  });

  it('refuses to serve without a key file, or a state of another log, as one JSON error', async () => {
    const missing = await runCli(['witness', 'serve', '--port', '0', '--log-vkey', log.verifierKey, '--state', stateFile, '--key-file', join(directory, 'absent')], env);
    expect([missing.status, missing.json?.error?.code]).toEqual([1, 'WITNESS_KEY']);
    const other = ed25519Signer('other.example/log', randomBytes(32));
    const wrongLog = await runCli(['witness', 'serve', '--port', '0', '--log-vkey', other.verifierKey, '--state', stateFile, '--key-file', keyFile], env);
    expect([wrongLog.status, wrongLog.json?.error?.code]).toEqual([1, 'WITNESS_STATE']);
  });
});
