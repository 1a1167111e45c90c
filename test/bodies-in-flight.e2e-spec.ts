import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Socket, connect } from 'node:net';
import { TestEnvironment, testEnvironment } from './support/environment';
import { ApiProcess, ensureBuilt, memoryOf, resetPeakMemory, runCli, spawnApi } from './support/processes';
import { redecConfiguration, rutOf } from './support/redec-fixtures';

// Issue 32, item 2: one tenant's large evidence uploads cannot take the
// process's memory. The built service as `npm start` runs it (under ts-node
// the compiler alone would hold some 130 MB more), with the smallest
// budget for bodies in flight (32 MiB, so a tenant's share is 16 MiB: one
// upload of 15 MB at a time).

const MB = 1024 * 1024;
const BUDGET = 32 * MB;
const MINUTE = 60_000;
const UPLOAD = 15 * MB;

/** A request whose headers and first bytes are sent and whose body then waits: it holds its reservation until its connection closes. */
interface HeldUpload {
  socket: Socket;
  /** What the service wrote back so far. */
  received(): string;
}

/** With `contentLength` 'chunked', the body is announced as chunked, its size unknown. */
function holdUpload(port: number, path: string, apiKey: string, contentLength: number | 'chunked', extraHeaders = ''): HeldUpload {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\n${contentLength === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${contentLength}`}\r\n${extraHeaders}\r\n`);
  return { socket, received: () => received };
}

async function waitFor<T>(what: string, probe: () => T | undefined, withinMs = 10_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The answer a held request got: status line, headers and problem body. */
function answerOf(raw: string): { status: number; headers: Record<string, string>; body: Record<string, unknown> } | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine, ...headerLines] = raw.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const body = raw.slice(end + 4);
  if (body.length < Number(headers['content-length'] ?? 0)) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, body: body === '' ? {} : (JSON.parse(body) as Record<string, unknown>) };
}

describe('memory budget for request bodies in flight', () => {
  let environment: TestEnvironment;
  let api: ApiProcess;
  let port: number;
  const keys: Record<'first' | 'second' | 'third', string> = { first: '', second: '', third: '' };
  let phoneConfiguration = '';
  let nextRut = 24_100_000;

  const call = async (apiKey: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${api.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text === '' ? {} : JSON.parse(text)) as Record<string, any> };
  };
  const openInteraction = async () => {
    const resolved = await call(keys.first, 'POST', '/v1/customers/resolve', {
      userReference: `cliente-${randomUUID()}`,
      identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf((nextRut += 7919)), verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - MINUTE } }],
    });
    expect(resolved.status).toBe(201);
    const opened = await call(keys.first, 'POST', '/v1/redec/consent-interactions', { configurationId: phoneConfiguration, customerId: resolved.body.customerId });
    expect(opened.status).toBe(201);
    return opened.body.interactionId as string;
  };
  const grantPath = (interactionId: string) => `/v1/redec/consent-interactions/${interactionId}/grant`;
  const audioGrant = (recording: Buffer) => {
    const occurredAt = Date.now() - MINUTE;
    return { occurredAt, sourceSystem: 'pbx', sourceReference: `call-${randomUUID()}`, evidence: { kind: 'audio_recording', recordedAt: occurredAt, mediaType: 'audio/mpeg', contentBase64: recording.toString('base64') } };
  };
  /**
   * Sends the grant again after Retry-After while the service is busy, as a
   * client should. A client still writing its body when the 503 comes may
   * see its connection reset instead of the answer: the same request is sent
   * again, which a grant allows (an identical retry answers the first grant).
   */
  const grantUntilAccepted = async (interactionId: string, body: object) => {
    const statuses: Array<number | 'reset'> = [];
    for (;;) {
      const answer = await call(keys.first, 'POST', grantPath(interactionId), body).catch((error: Error & { cause?: { code?: string } }) => {
        if (error.cause?.code !== 'EPIPE' && error.cause?.code !== 'ECONNRESET') throw error;
        return 'reset' as const;
      });
      statuses.push(answer === 'reset' ? answer : answer.status);
      if (answer !== 'reset' && answer.status !== 503) return { answer, statuses };
      await new Promise((r) => setTimeout(r, answer === 'reset' ? 1000 : Number(answer.headers.get('retry-after')) * 1000));
    }
  };

  /**
   * Closes held uploads and waits until the service has let their
   * reservations go (it learns of a closed connection a moment later): a
   * small body of the tenant is then read again (400 for an empty
   * endpoint, not 503).
   */
  const letGo = async (...held: HeldUpload[]) => {
    for (const upload of held) upload.socket.destroy();
    for (;;) {
      const probe = await call(keys.first, 'POST', '/v1/webhook-endpoints', {});
      if (probe.status !== 503) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  beforeAll(async () => {
    ensureBuilt();
    environment = testEnvironment({ LEDGER_MAX_BODY_BYTES_IN_FLIGHT: String(BUDGET) });
    api = await spawnApi(environment.env, 90_000, { built: true });
    port = Number(new URL(api.baseUrl).port);
    for (const name of Object.keys(keys) as Array<keyof typeof keys>) {
      const tenant = await runCli(['tenant', 'create', '--name', `Banco ${name}`], environment.env);
      keys[name] = (await runCli(['key', 'issue', '--tenant', tenant.json.tenantId, '--scopes', 'consent:admin,consent:write,consent:read,consent:identity-assert'], environment.env)).json.apiKey;
    }
    const published = await call(keys.first, 'POST', '/v1/configurations', redecConfiguration({ templateKey: `redec-phone-${randomUUID()}`, channel: 'phone' }));
    expect(published.status).toBe(201);
    phoneConfiguration = published.body.configurationId;
  }, 120_000);
  afterAll(async () => {
    api?.child.kill('SIGTERM');
    await api?.exited;
    await environment.dispose();
  });

  it("refuses 503 SERVICE_BUSY with Retry-After, on the headers alone, a body past its tenant's share or past the process's budget, and takes bodies again once those in flight are let go", async () => {
    const path = grantPath(await openInteraction());
    // Each key verified once, so that a held request's reservation is made as soon as its headers arrive.
    for (const apiKey of Object.values(keys)) expect((await call(apiKey, 'GET', '/v1/webhook-endpoints')).status).toBe(200);
    const first = holdUpload(port, path, keys.first, UPLOAD);
    await new Promise((r) => setTimeout(r, 300));

    const overShare = holdUpload(port, path, keys.first, 2 * MB);
    const shareRefusal = await waitFor('an answer past the share', () => answerOf(overShare.received()));
    expect(shareRefusal).toMatchObject({ status: 503, headers: { 'retry-after': '1', connection: 'close' }, body: { code: 'SERVICE_BUSY', reason: 'tenant_share_of_bodies_in_flight' } });

    const second = holdUpload(port, path, keys.second, UPLOAD);
    await new Promise((r) => setTimeout(r, 300));
    const overBudget = holdUpload(port, path, keys.third, 3 * MB);
    const budgetRefusal = await waitFor('an answer past the budget', () => answerOf(overBudget.received()));
    expect(budgetRefusal).toMatchObject({ status: 503, headers: { 'retry-after': '1' }, body: { code: 'SERVICE_BUSY', reason: 'bodies_in_flight' } });
    // The two held uploads were admitted: nothing was answered to them.
    expect([first.received(), second.received()]).toEqual(['', '']);

    await letGo(first, second, overShare, overBudget);
    const recording = randomBytes(Math.floor((UPLOAD * 3) / 4) - 1024);
    const { answer } = await grantUntilAccepted(await openInteraction(), audioGrant(recording));
    expect(answer.status).toBe(201);
    const artifact = await call(keys.first, 'GET', `/v1/redec/consents/${answer.body.redecConsentId}/artifact`);
    expect(artifact.body.contentSha256).toBe(createHash('sha256').update(recording).digest('hex'));
  });

  it("reserves the route's whole body limit for a chunked body, whose size is not announced", async () => {
    const path = grantPath(await openInteraction());
    const chunked = holdUpload(port, path, keys.first, 'chunked');
    await new Promise((r) => setTimeout(r, 300));
    const next = holdUpload(port, path, keys.first, 1024);
    expect(await waitFor('an answer past the share', () => answerOf(next.received()))).toMatchObject({ status: 503, body: { reason: 'tenant_share_of_bodies_in_flight' } });
    expect(chunked.received()).toBe('');
    await letGo(chunked, next);
  });

  it('asks for the body (100 Continue) only once it is admitted, and refuses without asking when it is not', async () => {
    const path = grantPath(await openInteraction());
    const admitted = holdUpload(port, path, keys.first, UPLOAD, 'Expect: 100-continue\r\n');
    expect(await waitFor('100 Continue', () => (admitted.received().startsWith('HTTP/1.1 100 Continue\r\n') ? true : undefined))).toBe(true);
    const refused = holdUpload(port, path, keys.first, UPLOAD, 'Expect: 100-continue\r\n');
    const answer = await waitFor('a refusal', () => answerOf(refused.received()));
    expect(answer.status).toBe(503);
    expect(refused.received()).not.toContain('100 Continue');
    await letGo(admitted, refused);
  });

  it('keeps resident memory under 400 MB while one tenant sends 20 uploads of 15 MB at once, and loses none it acknowledged', async () => {
    const recording = randomBytes(Math.floor((UPLOAD * 3) / 4) - 1024);
    const interactions = await Promise.all(Array.from({ length: 20 }, () => openInteraction()));
    resetPeakMemory(api.child.pid!);
    const outcomes = await Promise.all(
      interactions.map((interactionId, index) => {
        const distinct = Buffer.concat([Buffer.from([index]), recording.subarray(1)]);
        return grantUntilAccepted(interactionId, audioGrant(distinct));
      }),
    );
    expect(memoryOf(api.child.pid!, 'VmHWM')).toBeLessThan(400 * MB);
    expect(outcomes.map((o) => o.answer.status)).toEqual(Array(20).fill(201));
    // The budget did its work: some of them were first told to wait.
    expect(outcomes.filter((o) => o.statuses[0] !== 201).length).toBeGreaterThan(0);
    for (const { answer } of outcomes) expect((await call(keys.first, 'GET', `/v1/redec/consents/${answer.body.redecConsentId}`)).status).toBe(200);
  }, 180_000);
});
