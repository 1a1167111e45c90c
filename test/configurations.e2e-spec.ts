import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';

// docs/reference/configurations.md and docs/decisions/0013 through the real HTTP stack, SQLite store and Redis.
describe('/v1/configurations', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let admin: string;

  const redec = {
    finalityCode: '2',
    objectiveCodes: ['02', '03'],
    scopes: [{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }],
    targets: ['Banco de Prueba S.A.'],
    obligationSourceSystem: 'core-loans',
    regulatoryProfile: 'baseline',
  };
  const body = (overrides: Record<string, unknown> = {}) => ({
    templateKey: 'redec-credit-evaluation',
    title: 'Consulta al Registro de Deuda Consolidada',
    text: 'Autorizo a Banco de Prueba S.A. a consultar mi información en el Registro de Deuda Consolidada.',
    channel: 'digital',
    captureTiming: 'deferred_external',
    redec,
    ...overrides,
  });
  const publish = (apiKey: string, payload: unknown, headers: Record<string, string> = {}, on: ApiApp = api) =>
    on.http.post('/v1/configurations').set('Authorization', `Bearer ${apiKey}`).set(headers).send(payload as object);
  const read = (apiKey: string, configurationId: string) => api.http.get(`/v1/configurations/${configurationId}`).set('Authorization', `Bearer ${apiKey}`);
  const versions = (apiKey: string, templateKey: string) => api.http.get('/v1/configurations').query({ templateKey }).set('Authorization', `Bearer ${apiKey}`);

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment);
    admin = (await api.tenantKey(['consent:admin', 'consent:read'])).apiKey;
  });
  afterAll(async () => {
    await api.close();
    await environment.dispose();
  });

  it('publishes version 1, then version 2 with a new id, each readable with its own content', async () => {
    const first = await publish(admin, body({ templateKey: 'immutable' }));
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      configurationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      templateKey: 'immutable',
      version: 1,
      publishedAt: expect.any(Number),
      title: body().title,
      text: body().text,
      channel: 'digital',
      captureTiming: 'deferred_external',
      redec,
      embed: null,
      gracePeriodDays: 0,
    });
    const second = await publish(admin, body({ templateKey: 'immutable', text: 'Second wording.', channel: 'phone' }));
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ templateKey: 'immutable', version: 2, text: 'Second wording.', channel: 'phone' });
    expect(second.body.configurationId).not.toBe(first.body.configurationId);

    // Read-your-writes: both are readable at once, each exactly as published.
    expect((await read(admin, first.body.configurationId)).body).toEqual(first.body);
    expect((await read(admin, second.body.configurationId)).body).toEqual(second.body);
    const listed = await versions(admin, 'immutable');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ configurations: [first.body, second.body] });
  });

  it('gives concurrent publications of one template distinct consecutive versions', async () => {
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => publish(admin, body({ templateKey: 'contended', title: `Wording ${i}` }))));
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(responses.map((r) => r.body.version as number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(new Set(responses.map((r) => r.body.configurationId)).size).toBe(8);
    const listed = await versions(admin, 'contended');
    expect(listed.body.configurations.map((c: { version: number }) => c.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const response of responses) {
      expect(listed.body.configurations.find((c: { version: number }) => c.version === response.body.version)).toEqual(response.body);
    }
  });

  it('publishes a general consent without REDEC terms', async () => {
    const general = await publish(admin, body({ templateKey: 'newsletter', redec: undefined, channel: 'in_person' }));
    expect(general.status).toBe(201);
    expect(general.body).toMatchObject({ version: 1, channel: 'in_person', redec: null });
    expect((await read(admin, general.body.configurationId)).body.redec).toBeNull();
  });

  it('refuses bad input with one problem per offending field, and records nothing', async () => {
    const before = await api.store.headPosition();
    const cases: Array<[unknown, Array<{ field: string; reason: string }>]> = [
      [{ ...body(), colour: 'red', redec: { ...redec, tenantId: 'other' } }, [
        { field: 'colour', reason: 'unknown_property' },
        { field: 'redec.tenantId', reason: 'unknown_property' },
      ]],
      [body({ channel: 'fax' }), [{ field: 'channel', reason: 'invalid_value' }]],
      [body({ captureTiming: 'later' }), [{ field: 'captureTiming', reason: 'invalid_value' }]],
      [body({ redec: { ...redec, objectiveCodes: ['02', '3'] } }), [{ field: 'redec.objectiveCodes', reason: 'invalid_format' }]],
      [body({ redec: { ...redec, objectiveCodes: [] } }), [{ field: 'redec.objectiveCodes', reason: 'too_few_items' }]],
      [body({ redec: { ...redec, objectiveCodes: ['02', '02'] } }), [{ field: 'redec.objectiveCodes[1]', reason: 'duplicate_objective_code' }]],
      [body({ redec: { ...redec, scopes: [redec.scopes[0], { scopeId: 'redec-debt', dataCategoryCode: 'x' }] } }), [{ field: 'redec.scopes[1].scopeId', reason: 'duplicate_scope_id' }]],
      [body({ redec: { ...redec, scopes: [] } }), [{ field: 'redec.scopes', reason: 'too_few_items' }]],
      [body({ redec: { ...redec, targets: [] } }), [{ field: 'redec.targets', reason: 'too_few_items' }]],
      [body({ redec: { ...redec, regulatoryProfile: 'bank-phone' } }), [{ field: 'redec.regulatoryProfile', reason: 'unknown_regulatory_profile' }]],
      [body({ captureTiming: 'embedded', channel: 'phone' }), [{ field: 'captureTiming', reason: 'embedded_requires_digital_channel' }]],
      [body({ embed: { allowedOrigins: ['https://bank.example'] } }), [{ field: 'embed', reason: 'embed_requires_embedded_capture' }]],
      [body({ captureTiming: 'embedded', embed: { allowedOrigins: ['https://bank.example/path'] } }), [{ field: 'embed.allowedOrigins[0]', reason: 'invalid_origin' }]],
      [body({ gracePeriodDays: 400 }), [{ field: 'gracePeriodDays', reason: expect.any(String) }]],
      [body({ gracePeriodDays: 7 }), [{ field: 'gracePeriodDays', reason: 'grace_period_requires_earlier_version' }]],
      [{ title: 'x' }, [
        { field: 'templateKey', reason: 'required' },
        { field: 'text', reason: 'required' },
        { field: 'channel', reason: 'required' },
        { field: 'captureTiming', reason: 'required' },
      ]],
      [body({ templateKey: 'has spaces', redec: 'yes' }), [{ field: 'templateKey', reason: 'invalid_format' }, { field: 'redec', reason: 'must_be_object' }]],
    ];
    for (const [payload, errors] of cases) {
      const response = await publish(admin, payload);
      expect({ payload, status: response.status }).toEqual({ payload, status: 400 });
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
      expect(response.body.errors).toEqual(errors);
    }
    expect(await api.store.headPosition()).toBe(before);
  });

  it('needs consent:admin to publish and consent:read to read', async () => {
    const published = await publish(admin, body({ templateKey: 'scoped' }));
    const writer = (await api.tenantKey(['consent:write'])).apiKey;
    const refused = await publish(writer, body({ templateKey: 'scoped' }));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('INSUFFICIENT_SCOPE');
    const adminOnly = (await api.tenantKey(['consent:admin'])).apiKey;
    expect((await read(adminOnly, published.body.configurationId)).body.code).toBe('INSUFFICIENT_SCOPE');
    const anonymous = await api.http.get(`/v1/configurations/${published.body.configurationId}`);
    expect(anonymous.status).toBe(401);
    expect((await versions(admin, 'scoped')).body.configurations).toHaveLength(1);
  });

  it('never shows one tenant the configurations of another', async () => {
    const mine = await publish(admin, body({ templateKey: 'isolated' }));
    const other = await api.tenantKey(['consent:admin', 'consent:read']);
    const theirs = await read(other.apiKey, mine.body.configurationId);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect((await versions(other.apiKey, 'isolated')).body).toEqual({ configurations: [] });
    // The same template key in the other tenant starts at version 1.
    expect((await publish(other.apiKey, body({ templateKey: 'isolated' }))).body.version).toBe(1);
    expect((await read(admin, 'no-such-configuration')).status).toBe(404);
  });

  it('replays the first answer for a retry with the same Idempotency-Key, publishing once', async () => {
    const payload = body({ templateKey: 'idempotent' });
    const first = await publish(admin, payload, { 'Idempotency-Key': 'publish-1' });
    const retry = await publish(admin, payload, { 'Idempotency-Key': 'publish-1' });
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(retry.body).toEqual(first.body);
    expect((await versions(admin, 'idempotent')).body.configurations).toHaveLength(1);
    const reused = await publish(admin, { ...payload, title: 'Other' }, { 'Idempotency-Key': 'publish-1' });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  describe('with LEDGER_PROFILES_FILE', () => {
    const bankPhone = {
      id: 'bank-phone',
      version: 1,
      maxOccurredAtSkewMs: 86_400_000,
      recordingToleranceMs: 60_000,
      callerClockSkewMs: 60_000,
      authorizationTtlMs: 120_000,
      mediumCodes: { electronic: '1', audio_recording: '2', physical_document: '3' },
      channels: { phone: { evidenceKinds: ['audio_recording'], identifiers: [{ type: 'rut', verificationRequired: true }], revocationIdentityAssurance: ['client_authenticated'] } },
    };
    const profilesFile = (name: string, document: unknown) => {
      const file = join(environment.dataDir, name);
      writeFileSync(file, typeof document === 'string' ? document : JSON.stringify(document));
      return file;
    };

    it('accepts a configuration naming a configured profile, on a channel the profile supports', async () => {
      const configured = testEnvironment();
      const withProfiles = await startApiApp(configured, { LEDGER_PROFILES_FILE: profilesFile('profiles.json', { profiles: [bankPhone] }) });
      try {
        const key = (await withProfiles.tenantKey(['consent:admin'])).apiKey;
        const accepted = await publish(key, body({ channel: 'phone', redec: { ...redec, regulatoryProfile: 'bank-phone' } }), {}, withProfiles);
        expect(accepted.status).toBe(201);
        expect(accepted.body.redec.regulatoryProfile).toBe('bank-phone');
        const digital = await publish(key, body({ channel: 'digital', redec: { ...redec, regulatoryProfile: 'bank-phone' } }), {}, withProfiles);
        expect(digital.status).toBe(400);
        expect(digital.body.errors).toEqual([{ field: 'channel', reason: 'not_supported_by_regulatory_profile' }]);
        expect((await publish(key, body({ templateKey: 'still-baseline' }), {}, withProfiles)).status).toBe(201);
      } finally {
        await withProfiles.close();
        await configured.dispose();
      }
    });

    it('refuses to start with a profiles file that is invalid, not JSON, or redefines baseline, saying why', async () => {
      const invalid = profilesFile('invalid.json', { profiles: [{ ...bankPhone, channels: { phone: { evidenceKinds: ['fax'], identifiers: [], revocationIdentityAssurance: ['client_authenticated'] } } }] });
      await expect(startApiApp(environment, { LEDGER_PROFILES_FILE: invalid })).rejects.toThrow(
        `invalid Regulatory Profiles in LEDGER_PROFILES_FILE ${invalid}:\n  profiles[0].channels.phone.evidenceKinds[0]: must be one of electronic, audio_recording, physical_document`,
      );
      const baseline = profilesFile('baseline.json', { profiles: [{ ...bankPhone, id: 'baseline' }] });
      await expect(startApiApp(environment, { LEDGER_PROFILES_FILE: baseline })).rejects.toThrow('profiles[0].id: "baseline" ships with the service and cannot be redefined');
      const broken = profilesFile('broken.json', '{"profiles": [');
      await expect(startApiApp(environment, { LEDGER_PROFILES_FILE: broken })).rejects.toThrow(`LEDGER_PROFILES_FILE ${broken} is not valid JSON`);
    });
  });
});
