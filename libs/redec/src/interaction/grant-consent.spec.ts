import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { CommandContext, ValueProtection, toNewEvent } from '@ledger/ledger';
import { bankingCalendar } from '../calendar';
import { GrantRequest } from '../consent/grant.decider';
import { internalConsentCodeFor } from '../consent/internal-consent-code';
import { ProfileCatalog } from '../profiles/profile-catalog';
import { redecStreams } from '../streams';
import { GrantDependencies, GrantSubject, recordGrant, redecConsentIdFor } from './grant-consent';

// A prepared request protects nothing more and stores no bytes.
const nothingProtected = new Proxy({} as ValueProtection, { get: () => () => Promise.reject(new Error('nothing is protected when recording a prepared grant')) });
const noBlobs: GrantDependencies['blobs'] = { put: () => Promise.reject(new Error('no bytes are stored when recording a prepared grant')) };

// Integration: the real SQLite store, for what the pure decider cannot show: the internal code's claim and the grant, each a command of its own.
describe('recordGrant against the SQLite store', () => {
  let dir: string;
  let service: SqliteEventStore;
  const tenantId = randomUUID();
  const now = Date.UTC(2026, 10, 20, 15, 0, 0);
  const context = (): CommandContext & { tenantId: string } => ({ tenantId, actor: 'key-1', correlationId: randomUUID(), now });
  const deps = (): GrantDependencies => ({ store: service, protection: nothingProtected, profiles: new ProfileCatalog(), blobs: noBlobs, calendar: bankingCalendar() });
  const subject: GrantSubject = {
    interactionId: 'int-1',
    customerId: 'cus-1',
    configuration: {
      configurationId: 'cfg-1',
      templateKey: 'redec-credit-evaluation',
      version: 1,
      title: 'Consulta REDEC',
      text: 'Autorizo la consulta.',
      channel: 'digital',
      captureTiming: 'deferred_external',
      redec: {
        finalityCode: '2',
        objectiveCodes: ['02'],
        scopes: [{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }],
        targets: ['Banco Ejemplo'],
        obligationSourceSystem: 'core-loans',
        regulatoryProfile: 'baseline',
      },
    },
  };
  const request: GrantRequest = {
    occurredAt: now - 60_000,
    sourceSystem: 'web-onboarding',
    sourceReference: 'capture-1',
    representation: null,
    evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-1' } },
  };
  const redecConsentId = redecConsentIdFor(tenantId, subject.interactionId);
  const codeStream = (attempt: number) => redecStreams.internalConsentCode(tenantId, internalConsentCodeFor(tenantId, redecConsentId, attempt));
  const grant = () => recordGrant(deps(), subject, request, 'hash-1', context(), { capture: 'deferred_external', receivedAt: now });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'grant-'));
    service = new SqliteEventStore(join(dir, 'ledger.sqlite'));
  });
  afterEach(async () => {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a new grant\'s consent and first code once each, together, then claims the code and records the grant', async () => {
    const reads = jest.spyOn(service, 'readStream');
    const { grant: granted, position } = await grant();
    expect(reads).toHaveBeenCalledTimes(2);
    expect(granted.internalConsentCode).toBe(internalConsentCodeFor(tenantId, redecConsentId, 0));
    const [claim] = await service.readStream(codeStream(0));
    expect(claim).toMatchObject({ type: 'InternalConsentCodeClaimed', data: { redecConsentId } });
    const recorded = await service.readStream(redecStreams.consent(tenantId, redecConsentId));
    expect(recorded).toMatchObject([{ type: 'ConsentGranted', id: granted.consentActionId, position }]);
  });

  it('draws the next code when another consent holds the first', async () => {
    const claimed = { type: 'InternalConsentCodeClaimed', data: { redecConsentId: randomUUID(), claimedAt: now } };
    await service.append(codeStream(0), [toNewEvent(claimed, context())], 'no_stream');
    const { grant: granted } = await grant();
    expect(granted.internalConsentCode).toBe(internalConsentCodeFor(tenantId, redecConsentId, 1));
    expect((await service.readStream(codeStream(1))).map((e) => e.data)).toEqual([{ redecConsentId, claimedAt: now }]);
  });

  it('records one of two concurrent identical grants, with one claim, and answers the other as its repeat', async () => {
    const [first, second] = await Promise.all([grant(), grant()]);
    expect(second.grant).toEqual(first.grant);
    expect([first.position, second.position].filter((position) => position !== null)).toHaveLength(1);
    expect(await service.readStream(redecStreams.consent(tenantId, redecConsentId))).toHaveLength(1);
    expect(await service.readStream(codeStream(0))).toHaveLength(1);
  });
});
