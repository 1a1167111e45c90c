import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { RecordedEvent, SqliteEventStore } from '@ledger/event-store';
import { ValueProtection, loadAggregate, toNewEvent } from '@ledger/ledger';
import { DomainError } from '@ledger/platform';
import {
  AccessDecided,
  AccessRequestInput,
  ConsentEvent,
  ConsentState,
  ObligationBound,
  ProfileCatalog,
  authorizeAccess,
  bankingCalendar,
  bindObligation,
  bindingStands,
  confirmAccess,
  decideAccess,
  denyReasonAt,
  endCreditExtension,
  evolveConsent,
  initialAccessValidUntil,
  redecStreams,
  registerCreditExtension,
  revokeConsent,
} from '@ledger/redec';
import { DAY, HOUR, MINUTE } from './commands';
import { CUSTOMERS, OBLIGATION_SOURCE_SYSTEM, TENANT_ID, consentIdOf } from './ledger';
import { grantOf } from './lifecycle-system';

/**
 * Decision 0055's claim, as a property: however the commands of concurrent
 * clients interleave, no decision is recorded that the consent did not
 * enable under the facts recorded before it. A few clients send commands on
 * one consent at once (authorizations of both kinds, a revocation, credits,
 * their ends, bindings, confirmations), each pausing a drawn number of
 * event-loop turns before each command, through the application's own
 * command functions on the real embedded store, whose group commit mixes
 * them in one transaction. Afterwards every authorization, binding and
 * confirmation in the store is judged on the consent's facts recorded
 * before it.
 */

const REFERENCES = ['op-1', 'op-2'] as const;
type Context = { tenantId: string; actor: string; correlationId: string; now: number };
type Reference = (typeof REFERENCES)[number];

export type ClientCommand =
  | { kind: 'authorize'; mode: 'initial_window' | Reference }
  | { kind: 'revoke'; before: number }
  | { kind: 'register'; reference: Reference; before: number }
  | { kind: 'end'; reference: Reference; before: number; supersededBy: Reference | null }
  | { kind: 'bind'; reference: Reference; before: number }
  | { kind: 'confirm' };

export interface ConcurrentScenario {
  /** Each client's commands, in its order, each after a pause of so many event-loop turns. */
  clients: Array<Array<{ command: ClientCommand; pause: number }>>;
}

/** How long before the receipt a fact is stated to have happened: the same instant, a little before, well before. */
const before = fc.constantFrom(0, 1, MINUTE, HOUR, DAY);
const reference = fc.constantFrom<Reference>(...REFERENCES);
const command: fc.Arbitrary<ClientCommand> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('authorize' as const), mode: fc.constantFrom<'initial_window' | Reference>('initial_window', 'initial_window', ...REFERENCES) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('revoke' as const), before }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('register' as const), reference, before }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('end' as const), reference, before, supersededBy: fc.option(reference, { freq: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('bind' as const), reference, before }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('confirm' as const) }) },
);
const client = fc.array(fc.record({ command, pause: fc.nat({ max: 3 }) }), { minLength: 1, maxLength: 8 });

export const concurrentScenarios: fc.Arbitrary<ConcurrentScenario> = fc.record({ clients: fc.array(client, { minLength: 2, maxLength: 4 }) });

/** The receipt instant of every command: a Monday noon, three days after the grant, well inside its window. */
const NOW = Date.UTC(2026, 0, 12, 15, 0, 0);
const GRANTED_AT = NOW - 3 * DAY;
const CONSENT = consentIdOf(1);
const profiles = new ProfileCatalog();
/** No command here sends a mandatary, whose RUT is the only thing authorize protects. */
const protection: ValueProtection = new Proxy({} as ValueProtection, {
  get: () => () => {
    throw new Error('no value is protected in this test');
  },
});

/** Runs the scenario's clients at once on a fresh store; the violations found in what it recorded. */
export async function runConcurrently(scenario: ConcurrentScenario): Promise<{ violations: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'model-concurrent-'));
  const store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
  try {
    const grant = grantOf({ type: 'grant', consent: 1, customerId: CUSTOMERS[0], grantedAt: GRANTED_AT, initialAccessValidUntil: initialAccessValidUntil(GRANTED_AT, bankingCalendar()) }, NOW);
    const context = (client: number, n: number): Context => ({ tenantId: TENANT_ID, actor: `client-${client}`, correlationId: `c-${client}-${n}`, now: NOW + n });
    await store.append(redecStreams.consent(TENANT_ID, CONSENT), [toNewEvent(grant, context(0, 0))], 'no_stream');
    await Promise.all(
      scenario.clients.map(async (commands, c) => {
        const authorized: string[] = [];
        for (const [n, { command, pause }] of commands.entries()) {
          for (let turn = 0; turn < pause; turn += 1) await new Promise((resolve) => setImmediate(resolve));
          try {
            await run(store, command, context(c + 1, n), authorized, `${c}-${n}`);
          } catch (error) {
            // A refusal (a rule, or concurrent_change after the retries) is an answer like any other; a fault is not.
            if (!(error instanceof DomainError)) throw error;
          }
        }
      }),
    );
    return { violations: violationsIn(await store.readAll()) };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function run(store: SqliteEventStore, command: ClientCommand, context: Context, authorized: string[], id: string): Promise<void> {
  const at = (ms: number) => context.now - ms;
  switch (command.kind) {
    case 'authorize': {
      const { decision } = await authorizeAccess({ store, profiles, protection }, accessRequest(command.mode, id, context.now), context);
      if (decision.status === 'authorized') authorized.push(decision.redecAccessId);
      return;
    }
    case 'revoke':
      await revokeConsent({ store, profiles }, CONSENT, { channel: 'digital', occurredAt: Math.max(at(command.before), GRANTED_AT), sourceType: 'direct', identityAssurance: 'client_authenticated' }, context);
      return;
    case 'register': {
      const request = { customerTenantId: CUSTOMERS[0], objectiveCode: '02', creditOperationReference: command.reference, creditGrantedAt: at(command.before), sourceSystem: OBLIGATION_SOURCE_SYSTEM, sourceReference: `loan-${command.reference}` };
      await registerCreditExtension({ store, profiles, obligationElsewhere: async () => ({ extensionEnded: false }) }, CONSENT, request, context);
      return;
    }
    case 'end': {
      const extension = (await consentNow(store))?.creditExtensions.find((e) => e.creditOperationReference === command.reference);
      if (!extension) return;
      const superseding = command.supersededBy !== null && command.supersededBy !== command.reference ? command.supersededBy : null;
      const request = superseding ? { endReason: 'superseded_by_new_obligation' as const, supersededByObligationReference: superseding } : { endReason: 'obligation_extinguished' as const };
      await endCreditExtension({ store, profiles }, CONSENT, extension.creditExtensionId, { ...request, occurredAt: at(command.before) }, context);
      return;
    }
    case 'bind':
      await bindObligation({ store, profiles }, { sourceSystem: OBLIGATION_SOURCE_SYSTEM, obligationReference: command.reference, kind: 'consent', redecConsentId: CONSENT, obligationGrantedAt: at(command.before) }, context);
      return;
    case 'confirm': {
      const access = authorized.shift();
      if (access) await confirmAccess({ store, profiles, protection }, access, { kind: 'accessed', accessedAt: context.now }, context);
      return;
    }
  }
}

function accessRequest(mode: 'initial_window' | Reference, id: string, now: number): AccessRequestInput {
  const common = {
    authorizationBasis: 'consent' as const,
    redecConsentId: CONSENT,
    dataCategoryCode: 'redec.consolidated_debt_record',
    scopeId: 'redec-debt',
    objectiveCode: '02',
    sourceSystem: 'origination',
    sourceReference: `access-${id}`,
  };
  return mode === 'initial_window'
    ? { ...common, consentAuthorizationMode: 'initial_window', reportingObligation: { status: 'none', sourceSystem: OBLIGATION_SOURCE_SYSTEM, sourceReference: 'request', assertedAt: now } }
    : {
        ...common,
        consentAuthorizationMode: 'credit_lifecycle_extension',
        accessPurpose: 'manage_existing_obligation',
        reportingObligation: { status: 'granted', sourceSystem: OBLIGATION_SOURCE_SYSTEM, sourceReference: mode, assertedAt: now },
      };
}

async function consentNow(store: SqliteEventStore): Promise<ConsentState | null> {
  return (await loadAggregate(store, redecStreams.consent(TENANT_ID, CONSENT), (state: ConsentState | null, event: ConsentEvent) => evolveConsent(state, event, TENANT_ID))).state;
}

/** Every authorization, binding and confirmed access the store holds, judged on the consent's facts recorded before it. */
function violationsIn(events: readonly RecordedEvent[]): string[] {
  const consentStream = redecStreams.consent(TENANT_ID, CONSENT);
  const consentBefore = (position: number) =>
    events.filter((e) => e.streamId === consentStream && e.position < position).reduce<ConsentState | null>((state, e) => evolveConsent(state, e as unknown as ConsentEvent, TENANT_ID), null)!;
  const decisions = new Map<string, AccessDecided['data']>();
  const violations: string[] = [];
  for (const event of events) {
    if (event.type === 'AccessDecided') {
      const decision = event.data as AccessDecided['data'];
      decisions.set(decision.redecAccessId, decision);
      const judged = decideAccess(consentBefore(event.position), decision.request, decision.decidedAt);
      if (decision.status === 'authorized' && judged.status !== 'authorized') {
        violations.push(`authorization at position ${event.position} on consent revision ${decision.consentRevision}, which the facts recorded before it deny (${judged.denyReasonCode})`);
      }
    }
    if (event.type === 'ObligationBound') {
      const { obligationGrantedAt, ...binding } = (event as unknown as ObligationBound).data;
      if (!bindingStands(consentBefore(event.position), binding, obligationGrantedAt)) violations.push(`binding at position ${event.position} the facts recorded before it refuse`);
    }
    if (event.type === 'AccessConfirmed') {
      const { redecAccessId, outcome } = event.data as { redecAccessId: string; outcome: { kind: string; accessedAt?: number } };
      const decision = decisions.get(redecAccessId)!;
      if (outcome.kind === 'accessed' && denyReasonAt(consentBefore(event.position), decision.request, Math.max(outcome.accessedAt!, decision.decidedAt)) !== null) {
        violations.push(`access confirmed at position ${event.position} the facts recorded before it deny`);
      }
    }
  }
  return violations;
}
