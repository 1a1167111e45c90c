import request from 'supertest';
import { TestApp, startTestApp, tempDir } from '../testing/test-app';
import { IDEMPOTENCY_LEASE_MS, IdempotencyEventTypes, hashRequest, idempotencyStreamId } from './idempotency-record';

const WRITER = { Authorization: 'Bearer key-writer' };

describe('Idempotency-Key on a real SQLite event store', () => {
  const temp = tempDir();
  const storeFile = `${temp.dir}/store.sqlite`;
  let test: TestApp;
  let keyCounter = 0;
  const http = () => request(test.app.getHttpServer());
  const newKey = () => `key-${++keyCounter}`;
  const post = (key: string | undefined, body: object, auth = WRITER) => {
    const call = http().post('/things').set(auth);
    return (key === undefined ? call : call.set('Idempotency-Key', key)).send(body);
  };

  beforeEach(async () => {
    test = await startTestApp(storeFile);
  });
  afterEach(async () => {
    await test.close();
  });
  afterAll(() => temp.remove());

  it('requires the header on a required route', async () => {
    const response = await post(undefined, { name: 'a' });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    expect(test.probe.runs).toBe(0);
  });

  it('refuses a key that is not 1 to 255 visible ASCII characters', async () => {
    for (const key of ['x'.repeat(256), 'has space']) {
      const response = await post(key, { name: 'a' });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'VALIDATION_ERROR', reason: 'invalid_idempotency_key' });
    }
    expect(test.probe.runs).toBe(0);
  });

  it('answers an exact retry with the first answer, byte for byte, running the handler once', async () => {
    const key = newKey();
    const first = await post(key, { name: 'a' });
    const retry = await post(key, { name: 'a' });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers['content-type']).toBe(first.headers['content-type']);
    expect(test.probe.runs).toBe(1);
  });

  it('keeps an answer that carries a secret encrypted in the store, and still replays it byte for byte', async () => {
    const key = newKey();
    const first = await http().post('/secret-things').set(WRITER).set('Idempotency-Key', key).send({ name: 'a' });
    expect(first.status).toBe(201);
    expect(first.body.secret).toBe('whsec_shown-once-1');
    const retry = await http().post('/secret-things').set(WRITER).set('Idempotency-Key', key).send({ name: 'a' });
    expect(retry.text).toBe(first.text);
    expect(test.probe.runs).toBe(1);
    const stored = JSON.stringify(await test.store.readAll());
    expect(stored).not.toContain('whsec_shown-once');
    expect(stored).toContain('"bodyProtected":true');
  });

  it('refuses the same key with a different body: 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const key = newKey();
    await post(key, { name: 'a' }).expect(201);
    const response = await post(key, { name: 'b' });
    expect(response.status).toBe(422);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(test.probe.runs).toBe(1);
  });

  it('keeps keys per tenant', async () => {
    const key = newKey();
    await post(key, { name: 'a' }).expect(201);
    await post(key, { name: 'b' }, { Authorization: 'Bearer key-other-tenant' }).expect(201);
    expect(test.probe.runs).toBe(2);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_PROGRESS while the first request runs, then replays its answer', async () => {
    const key = newKey();
    const hold = test.probe.hold();
    const first = post(key, { name: 'a', behaviour: 'wait' }).then((response) => response);
    await hold.entered;
    const concurrent = await post(key, { name: 'a', behaviour: 'wait' });
    expect(concurrent.status).toBe(409);
    expect(concurrent.body.code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    hold.release();
    const firstResponse = await first;
    expect(firstResponse.status).toBe(201);
    const retry = await post(key, { name: 'a', behaviour: 'wait' });
    expect(retry.text).toBe(firstResponse.text);
    expect(test.probe.runs).toBe(1);
  });

  it('keeps the key of a request slower than the lease: the claim is renewed while it runs, so a retry is not run a second time', async () => {
    const key = newKey();
    const hold = test.probe.hold();
    const first = post(key, { name: 'a', behaviour: 'wait' }).then((response) => response);
    await hold.entered;
    const claimsBefore = (await test.store.readStream(idempotencyStreamId('tenant-a', key))).length;
    // The service clock passes the lease while the request still runs; its heartbeat renews the claim meanwhile.
    test.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
    await waitFor(async () => (await test.store.readStream(idempotencyStreamId('tenant-a', key))).length > claimsBefore);
    const retry = await post(key, { name: 'a', behaviour: 'wait' });
    expect(retry.status).toBe(409);
    expect(retry.body.code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    hold.release();
    expect((await first).status).toBe(201);
    expect((await post(key, { name: 'a', behaviour: 'wait' })).text).toBe((await first).text);
    expect(test.probe.runs).toBe(1);
  });

  it('records a domain error outcome and replays it identically', async () => {
    const key = newKey();
    const first = await post(key, { name: 'a', behaviour: 'conflict' });
    expect(first.status).toBe(409);
    expect(first.body.code).toBe('thing_already_exists');
    const retry = await post(key, { name: 'a', behaviour: 'conflict' });
    expect(retry.status).toBe(409);
    expect(retry.text).toBe(first.text);
    expect(retry.headers['content-type']).toBe(first.headers['content-type']);
    expect(test.probe.runs).toBe(1);
  });

  it('releases the key after a validation error so that a corrected request proceeds', async () => {
    const key = newKey();
    const invalid = await post(key, { name: 42 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('VALIDATION_ERROR');
    await post(key, { name: 'a' }).expect(201);
    expect(test.probe.runs).toBe(1);
  });

  it('releases the key after a validation error raised by the handler', async () => {
    const key = newKey();
    await post(key, { name: 'a', behaviour: 'validation' }).expect(400);
    await post(key, { name: 'a', behaviour: 'validation' }).expect(400);
    expect(test.probe.runs).toBe(2);
  });

  it('releases the key after an unexpected error so that the retry runs again', async () => {
    const key = newKey();
    const crash = await post(key, { name: 'a', behaviour: 'crash' });
    expect(crash.status).toBe(500);
    await post(key, { name: 'a', behaviour: 'crash' }).expect(500);
    expect(test.probe.runs).toBe(2);
  });

  it('survives a restart: a new application on the same SQLite file replays the answer', async () => {
    const key = newKey();
    const first = await post(key, { name: 'a' });
    await test.close();
    test = await startTestApp(storeFile);
    const retry = await post(key, { name: 'a' });
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(test.probe.runs).toBe(0);
  });

  it('takes over a claim whose request died, once the lease is over', async () => {
    const key = newKey();
    const body = { name: 'a' };
    const requestHash = await hashRequest('POST', '/things', body);
    await test.store.append(
      idempotencyStreamId('tenant-a', key),
      [
        {
          id: '00000000-0000-4000-8000-000000000001',
          type: IdempotencyEventTypes.CLAIMED,
          data: { requestHash, claimedAt: test.clock.now() },
          metadata: { correlationId: 'dead-request', recordedAt: test.clock.now(), schemaVersion: 1 },
        },
      ],
      'no_stream',
    );
    expect((await post(key, body)).body.code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    test.clock.advance(IDEMPOTENCY_LEASE_MS);
    await post(key, body).expect(201);
    expect(test.probe.runs).toBe(1);
  });

  it('stamps its events with the request context and the service clock', async () => {
    const key = newKey();
    const response = await post(key, { name: 'a' }).set('x-request-id', 'req-meta-1');
    expect(response.status).toBe(201);
    const events = await test.store.readStream(idempotencyStreamId('tenant-a', key));
    expect(events.map((event) => event.type)).toEqual([IdempotencyEventTypes.CLAIMED, IdempotencyEventTypes.RESPONSE_RECORDED]);
    for (const event of events) {
      expect(event.metadata).toEqual({
        tenantId: 'tenant-a',
        actor: 'kid-writer',
        correlationId: 'req-meta-1',
        recordedAt: test.clock.now(),
        schemaVersion: 1,
        idempotencyKey: key,
        requestHash: await hashRequest('POST', '/things', { name: 'a' }),
      });
    }
    expect(events[1].data).toEqual({
      requestHash: await hashRequest('POST', '/things', { name: 'a' }),
      status: 201,
      body: response.text,
      contentType: response.headers['content-type'],
    });
  });

  describe('on a route where the key is optional', () => {
    const postOptional = (key: string | undefined, body: object) => {
      const call = http().post('/optional-things').set(WRITER);
      return (key === undefined ? call : call.set('Idempotency-Key', key)).send(body);
    };

    it('runs every request sent without a key', async () => {
      await postOptional(undefined, { name: 'a' }).expect(201);
      const second = await postOptional(undefined, { name: 'a' });
      expect(second.body).toMatchObject({ run: 2, idempotency: null });
    });

    it('applies the full rules when a key is sent and exposes it to the handler', async () => {
      const key = newKey();
      const first = await postOptional(key, { name: 'a' });
      expect(first.body).toMatchObject({ run: 1, idempotency: { key, requestHash: await hashRequest('POST', '/optional-things', { name: 'a' }) } });
      expect((await postOptional(key, { name: 'a' })).text).toBe(first.text);
      expect((await postOptional(key, { name: 'b' })).status).toBe(422);
      expect(test.probe.runs).toBe(1);
    });
  });
});

/** Polls `condition` until it holds (a bound, not a timing: the heartbeat runs every few milliseconds). */
async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
