import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { IncomingMessage, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { CosignatureSigner, NoteError, NoteVerifier, WitnessState, addCheckpoint, cosignatureSigner, noteVerifier, parseCheckpoint } from '@ledger/transparency';
import { CommandError } from './cli-error';
import { CliOutput } from './cli-output';
import type { StandaloneCommand, StandaloneDependencies } from './commands';
import { CliOption, port } from './options';

/**
 * `ledger witness`: a C2SP tlog-witness (c2sp.org/tlog-witness) of one log,
 * serving `POST /add-checkpoint` with node:http. It cosigns a checkpoint
 * only when it extends the last one it cosigned, which it keeps in a state
 * file written durably (temporary file, fsync, rename, fsync of the
 * directory) before the cosignature is sent: after a crash it restarts from
 * what it last said, so it can never be made to cosign a fork of it.
 */

/** A request is an old size line, at most 63 hashes and a checkpoint with its signatures: a few kilobytes. */
const MAX_BODY = 64 * 1024;
const DEFAULT_NAME = 'witness';

const nameOption: CliOption = {
  flags: '--name <KEY_NAME>',
  description: `the witness's key name, in its verifier key and cosignature lines (default: ${DEFAULT_NAME}); C2SP suggests a URL without scheme naming the witness, e.g. witness.example.com/w1; give the same to \`key\` and \`serve\``,
};
const keyFileOption: CliOption = { flags: '--key-file <FILE>', description: "the witness's private key: a 32-byte Ed25519 seed in hexadecimal", required: true };

export const witnessCommands: Record<string, StandaloneCommand> = {
  'witness key': {
    description: "print the witness's cosignature verifier key, creating its key file (mode 0600) when there is none",
    options: [keyFileOption, nameOption],
    opensLedger: false,
    run: async (o) => ({ verifierKey: cosigner(o.name ?? DEFAULT_NAME, readSeed(o.keyFile, { create: true })).verifierKey }),
  },
  'witness serve': {
    description:
      'serve POST /add-checkpoint for the log of --log-vkey until SIGTERM or SIGINT; prints {listening, verifierKey, origin, size} on stdout once listening, one line per request on stderr',
    options: [
      { flags: '--port <PORT>', description: 'the TCP port to listen on (0: any free one, printed)', required: true, parse: port },
      { flags: '--host <ADDRESS>', description: 'the address to listen on (default: 127.0.0.1; a proxy in front serves the Internet)' },
      { flags: '--log-vkey <VKEY>', description: "the log's Ed25519 verifier key; its name is the log's origin", required: true, parse: logKey },
      { flags: '--state <FILE>', description: 'the last checkpoint cosigned (JSON), created on the first', required: true },
      keyFileOption,
      nameOption,
    ],
    opensLedger: false,
    run: (o, d) => serve(o as ServeOptions, d),
  },
};

interface ServeOptions {
  port: number;
  host?: string;
  logVkey: NoteVerifier;
  state: string;
  keyFile: string;
  name?: string;
}

function logKey(value: string): NoteVerifier {
  try {
    return noteVerifier(value);
  } catch {
    throw new InvalidArgumentError("must be a log's Ed25519 verifier key, <name>+<key ID>+<key>");
  }
}

function cosigner(name: string, seed: Buffer): CosignatureSigner {
  try {
    return cosignatureSigner(name, seed);
  } catch (error) {
    if (error instanceof NoteError) throw new CommandError('WITNESS_KEY', error.message);
    throw error;
  }
}

/** The key file's seed; `create` makes one, readable by its owner only, when there is no file. */
function readSeed(file: string, { create }: { create: boolean }): Buffer {
  if (create) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new CommandError('WITNESS_KEY', `no key file at ${file}; \`witness key\` creates one`);
    throw error;
  }
  if (!/^[0-9a-f]{64}$/.test(text)) throw new CommandError('WITNESS_KEY', `${file} does not hold a 32-byte seed in hexadecimal`);
  return Buffer.from(text, 'hex');
}

function readState(file: string, origin: string): WitnessState | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const { origin: stateOrigin, size, root } = JSON.parse(text) as { origin: string; size: number; root: string };
    const state = parseCheckpoint(`${stateOrigin}\n${size}\n${root}\n`);
    if (state.origin !== origin) throw new CommandError('WITNESS_STATE', `${file} is the state of ${state.origin}, not of ${origin}`);
    return state;
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError('WITNESS_STATE', `${file} is not a witness's state: ${(error as Error).message}`);
  }
}

/** Written whole or not at all, and on disk before it returns: a crash leaves the old state or the new one. */
function writeState(file: string, { origin, size, root }: WitnessState): void {
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o644);
  try {
    writeSync(fd, `${JSON.stringify({ origin, size, root: root.toString('base64') })}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
  const directory = openSync(dirname(file), 'r');
  try {
    fsyncSync(directory);
  } finally {
    closeSync(directory);
  }
}

async function serve(o: ServeOptions, d: StandaloneDependencies): Promise<CliOutput> {
  const origin = o.logVkey.name;
  const signer = cosigner(o.name ?? DEFAULT_NAME, readSeed(o.keyFile, { create: false }));
  const seedMode = statSync(o.keyFile).mode;
  if ((seedMode & 0o077) !== 0) d.progress(`witness: ${o.keyFile} is readable by others than its owner (mode ${(seedMode & 0o777).toString(8)}); chmod 600 it`);
  let state = readState(o.state, origin);

  const answer = (request: IncomingMessage, response: ServerResponse, body: string) => {
    // From the decision to the state on disk nothing awaits, so no other request is decided in between.
    const decided = addCheckpoint(state, body, { logVerifier: o.logVkey, cosigner: signer, now: Math.floor(Date.now() / 1000) });
    if (decided.status === 200) {
      try {
        writeState(o.state, decided.newState);
      } catch (error) {
        d.progress(`witness: could not keep the state in ${o.state}, nothing cosigned: ${(error as Error).message}`);
        return reply(response, 500, 'text/plain; charset=utf-8', 'the witness could not keep its state\n');
      }
      state = decided.newState;
    }
    d.progress(`witness: ${request.socket.remoteAddress} add-checkpoint ${decided.status} ${decided.status === 200 ? `size ${decided.newState.size}` : decided.body.trim()}`);
    reply(response, decided.status, decided.contentType, decided.body);
  };

  const server = createServer((request, response) => {
    if (request.url !== '/add-checkpoint') return reply(response, 404, 'text/plain; charset=utf-8', 'not found\n');
    if (request.method !== 'POST') return reply(response, 405, 'text/plain; charset=utf-8', 'POST only\n', { allow: 'POST' });
    const chunks: Buffer[] = [];
    let length = 0;
    request.on('data', (chunk: Buffer) => {
      length += chunk.length;
      // Past the bound nothing more is kept; the connection is closed once the refusal is sent.
      if (length > MAX_BODY) reply(response, 413, 'text/plain; charset=utf-8', `a request is at most ${MAX_BODY} bytes\n`, { connection: 'close' });
      else chunks.push(chunk);
    });
    request.on('end', () => {
      if (length > MAX_BODY) return;
      try {
        answer(request, response, Buffer.concat(chunks).toString('utf8'));
      } catch (error) {
        d.progress(`witness: add-checkpoint failed, nothing cosigned: ${(error as Error).message}`);
        reply(response, 500, 'text/plain; charset=utf-8', 'the witness failed\n');
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  await d.write(`${JSON.stringify({ listening: `http://${host}:${address.port}`, verifierKey: signer.verifierKey, origin, size: state?.size ?? 0 })}\n`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      d.progress(`witness: ${signal}, stopping`);
      server.close(() => resolve());
      server.closeIdleConnections();
    };
    process.once('SIGTERM', stop).once('SIGINT', stop);
  });
  return CliOutput.streamed;
}

function reply(response: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...headers }).end(body);
}
