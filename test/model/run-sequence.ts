import { isDeepStrictEqual } from 'node:util';
import { bankingCalendar, initialAccessValidUntil } from '@ledger/redec';
import { Command, HORIZON, Instant, Sequence } from './commands';
import { AccessLogEntry, invariantViolations } from './invariants';
import { AccessMode, Action, Answer, CONSENTS, CUSTOMERS, ConsentNo, ConsentRead, Ledger, OBLIGATION_POOL, Obligation, PROFILE } from './ledger';
import { LifecycleSystem } from './lifecycle-system';
import { ReferenceModel } from './reference-model';
import { Clock, signed } from './trace';

const calendar = bankingCalendar();

export interface Run {
  /** One numbered line per command, as far as the run went; built only when it failed. */
  lines: string[];
  /** What differed, or which invariant broke, at the last line; null when the sequence passed. */
  failure: string | null;
}

/** Runs one sequence against the reference model and the real system, comparing every answer and read after every step. */
export function runSequence(sequence: Sequence): Run {
  const run: RunSides = { model: new ReferenceModel(), system: new LifecycleSystem(), clock: new Clock(sequence.start), accesses: new Map(), now: sequence.start };
  const lines: Array<() => string> = [() => `t = ${new Date(sequence.start).toISOString()} (${run.clock.localDay(sequence.start)} in Santiago)`];
  const failed = (failure: string): Run => ({ lines: lines.map((line) => line()), failure });
  for (const [i, command] of sequence.commands.entries()) {
    const at = run.now;
    const prefix = () => `${String(i + 1).padStart(3)}. ${run.clock.at(at)}  `;
    try {
      const { line, failure } = runStep(run, command, i + 1);
      lines.push(() => prefix() + line());
      if (failure) return failed(failure);
    } catch (error) {
      // A fault in either side, not a refusal: the sequence stops here and shows it.
      lines.push(() => `${prefix()}${command.kind}`);
      return failed(`threw ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }
  return { lines: [], failure: null };
}

interface RunSides {
  model: ReferenceModel;
  system: LifecycleSystem;
  clock: Clock;
  /** The authorizations decided so far, in order, for confirm commands to name. */
  accesses: Map<string, AccessLogEntry>;
  now: number;
}

function runStep(run: RunSides, command: Command, step: number): { line: () => string; failure: string | null } {
  const { model, system, clock, accesses } = run;
  if (command.kind === 'advance') {
    const skipped = run.now + command.ms > HORIZON;
    if (!skipped) run.now += command.ms;
    return { line: () => `advance ${signed(command.ms)}${skipped ? ' (skipped: past the calendar horizon)' : ''}`, failure: compareReads(model, system, run.now, clock) };
  }
  const { now } = run;
  const resolved = resolve(command, model, accesses, clock, step, now);
  if ('skipped' in resolved) return { line: () => `${resolved.text()} (skipped: ${resolved.skipped})`, failure: null };
  const { action, text } = resolved;
  const { answer, failure } = applyToBoth(run, action, now);
  return { line: () => `${text()}  → ${clock.answer(answer)}`, failure };
}

/** The two sides of a run, and the authorizations decided so far. */
export type Sides = Pick<RunSides, 'model' | 'system' | 'clock' | 'accesses'>;

/**
 * One action on both sides at `now`: the same answer (same code, same
 * `reason`, same decision), the invariants on the real side, then every
 * consent's read and every pooled obligation's lookup alike.
 */
export function applyToBoth(sides: Sides, action: Action, now: number): { answer: Answer; failure: string | null } {
  const { model, system, clock, accesses } = sides;
  const expected = model.apply(action, now);
  const actual = system.apply(action, now);
  if (!isDeepStrictEqual(expected, actual)) return { answer: actual, failure: `answers differ\n  model:  ${clock.answer(expected)}\n  system: ${clock.answer(actual)}` };
  if (action.type === 'authorize' && actual.accepted) accesses.set(action.redecAccessId, { request: action, decidedAt: now, authorized: actual.decision?.status === 'authorized' });
  const violations = invariantViolations({ action, answer: actual, now, reads: readsOf(system, now), lookup: (o) => system.lookup(o), access: (id) => accesses.get(id) });
  if (violations.length > 0) return { answer: actual, failure: `invariant broken\n  ${violations.join('\n  ')}` };
  return { answer: actual, failure: compareReads(model, system, now, clock) };
}

function readsOf(ledger: Ledger, now: number): Map<ConsentNo, ConsentRead | null> {
  return new Map(CONSENTS.map((c) => [c, ledger.read(c, now)]));
}

/** Every consent's regulatory read and every pooled obligation's lookup, field by field. */
export function compareReads(model: Ledger, system: Ledger, now: number, clock: Clock): string | null {
  const differences: string[] = [];
  for (const consent of CONSENTS) {
    const expected = model.read(consent, now);
    const actual = system.read(consent, now);
    if (isDeepStrictEqual(expected, actual)) continue;
    if (!expected || !actual) {
      differences.push(`consent#${consent}: model ${JSON.stringify(expected)}, system ${JSON.stringify(actual)}`);
      continue;
    }
    for (const field of Object.keys(expected) as Array<keyof ConsentRead>) {
      if (!isDeepStrictEqual(expected[field], actual[field])) {
        differences.push(`consent#${consent}.${field}\n    model:  ${show(expected[field], clock)}\n    system: ${show(actual[field], clock)}`);
      }
    }
  }
  for (const obligation of OBLIGATION_POOL) {
    const expected = model.lookup(obligation);
    const actual = system.lookup(obligation);
    if (!isDeepStrictEqual(expected, actual)) differences.push(`lookup ${nameOf(obligation)}\n    model:  ${JSON.stringify(expected)}\n    system: ${JSON.stringify(actual)}`);
  }
  return differences.length > 0 ? `reads differ after this step\n  ${differences.join('\n  ')}` : null;
}

/** A read's value with its instants (epoch ms of this century) shown relative to t. */
function show(value: unknown, clock: Clock): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'number' && v > 1_000_000_000_000 ? clock.at(v) : v));
}

const nameOf = (o: Obligation) => `${o.sourceSystem}/${o.obligationReference}`;
const customerName = (customerId: string) => (customerId.toLowerCase() === CUSTOMERS[0] ? 'A' : 'B');

/** What a command does, with its trace line built only when a failure is printed. */
type Resolved = { action: Action; text: () => string } | { skipped: string; text: () => string };

/** A command's targets and instants, resolved against what has happened so far (the model's records, which the system matched until now). */
function resolve(command: Exclude<Command, { kind: 'advance' }>, model: ReferenceModel, accesses: Map<string, AccessLogEntry>, clock: Clock, step: number, now: number): Resolved {
  const pick = <T>(list: readonly T[], n: number): T | undefined => list[n % Math.max(list.length, 1)];
  const instant = (stated: Instant, subject: Subject) => {
    const asStated = anchorValue(stated, subject, model, accesses, now) + stated.offset;
    const value = stated.capped ? Math.min(asStated, now) : asStated;
    return { value, text: () => clock.instant(value, stated, value !== asStated) };
  };
  switch (command.kind) {
    case 'grant': {
      const grantedAt = now - command.before;
      const customerId = CUSTOMERS[command.customer];
      const to = `grant consent#${command.consent} to customer ${customerName(customerId)}, grantedAt ${clock.at(grantedAt)}`;
      if (model.consents.has(command.consent)) return { skipped: 'already granted', text: () => to };
      const validUntil = initialAccessValidUntil(grantedAt, calendar);
      const text = () => `${to} (${clock.localDay(grantedAt)}), window until ${clock.at(validUntil)} (${clock.localDay(validUntil)})`;
      return { action: { type: 'grant', consent: command.consent, customerId, grantedAt, initialAccessValidUntil: validUntil }, text };
    }
    case 'revoke': {
      const occurredAt = instant(command.occurredAt, { consent: command.consent });
      return { action: { type: 'revoke', consent: command.consent, occurredAt: occurredAt.value }, text: () => `revoke consent#${command.consent} occurredAt=${occurredAt.text()}` };
    }
    case 'register': {
      const granted = model.consents.get(command.consent);
      const own = granted?.customerId ?? CUSTOMERS[0];
      const customerTenantId = command.customer === 'other' ? CUSTOMERS.find((c) => c !== own)! : command.customer === 'own' ? own : own.toUpperCase();
      const creditGrantedAt = instant(command.creditGrantedAt, { consent: command.consent });
      const action: Action = {
        type: 'registerExtension',
        consent: command.consent,
        creditExtensionId: `x-${step}`,
        customerTenantId,
        objectiveCode: command.objectiveCode,
        creditOperationReference: command.reference,
        creditGrantedAt: creditGrantedAt.value,
        ...(command.sourceReference === undefined ? {} : { sourceReference: command.sourceReference }),
      };
      const source = command.sourceReference === undefined ? 'no sourceReference' : `sourceReference ${JSON.stringify(command.sourceReference)}`;
      return {
        action,
        text: () => `register x-${step} on consent#${command.consent} for ${command.reference}, objective ${command.objectiveCode}, creditGrantedAt=${creditGrantedAt.text()}, customer ${command.customer}, ${source}`,
      };
    }
    case 'end': {
      const extension = pick(model.extensions, command.extension);
      if (!extension) return { skipped: 'no extension registered', text: () => 'end an extension' };
      const occurredAt = command.occurredAt && instant(command.occurredAt, { consent: extension.consent, extension: extension.id });
      const action: Action = {
        type: 'endExtension',
        consent: extension.consent,
        creditExtensionId: extension.id,
        endReason: command.endReason,
        ...(command.supersededBy === null ? {} : { supersededByObligationReference: command.supersededBy }),
        ...(occurredAt ? { occurredAt: occurredAt.value } : {}),
      };
      const by = command.supersededBy ? `, supersededBy ${command.supersededBy}` : '';
      return { action, text: () => `end ${extension.id} (consent#${extension.consent}, ${extension.reference}) ${command.endReason}${by}${occurredAt ? `, occurredAt=${occurredAt.text()}` : ''}` };
    }
    case 'annulExtension':
    case 'annulExtensionEnd': {
      const extension = pick(model.extensions, command.extension);
      const what = command.kind === 'annulExtension' ? 'annul extension' : 'annul the end of';
      if (!extension) return { skipped: 'no extension registered', text: () => what };
      return {
        action: { type: command.kind, consent: extension.consent, creditExtensionId: extension.id },
        text: () => `${what} ${extension.id} (consent#${extension.consent}, ${extension.reference})`,
      };
    }
    case 'bind': {
      const obligation = { sourceSystem: command.sourceSystem, obligationReference: command.reference };
      const toConsent = command.bindingKind === 'consent';
      const extension = model.extensions.find((x) => x.consent === command.consent && x.reference === command.reference);
      const at = instant(command.obligationGrantedAt, { consent: toConsent ? command.consent : undefined, extension: extension?.id });
      const action: Action = { type: 'bind', bindingId: `b-${step}`, obligation, kind: command.bindingKind, consent: toConsent ? command.consent : null, obligationGrantedAt: at.value };
      return { action, text: () => `bind b-${step}: ${nameOf(obligation)} ${toConsent ? `to consent#${command.consent}` : `as ${command.bindingKind}`}, obligationGrantedAt=${at.text()}` };
    }
    case 'annulBinding': {
      const binding = pick(model.bindings, command.binding);
      if (!binding) return { skipped: 'no binding recorded', text: () => 'annul a binding' };
      const to = binding.consent ? `consent#${binding.consent}` : binding.kind;
      return { action: { type: 'annulBinding', bindingId: binding.id }, text: () => `annul binding ${binding.id} (${nameOf(binding.obligation)} → ${to})` };
    }
    case 'authorize': {
      const mode: AccessMode =
        command.mode === 'initial_window' ? { consentAuthorizationMode: 'initial_window' } : { consentAuthorizationMode: 'credit_lifecycle_extension', accessPurpose: command.mode };
      const obligation = { sourceSystem: command.sourceSystem, obligationReference: command.reference };
      const assertedAt = instant(command.assertedAt, {});
      const action: Action = { type: 'authorize', redecAccessId: `a-${step}`, consent: command.consent, mode, obligation, objectiveCode: command.objectiveCode, assertedAt: assertedAt.value };
      return { action, text: () => `authorize a-${step}: ${command.mode} on consent#${command.consent} for ${nameOf(obligation)}, objective ${command.objectiveCode}, assertedAt=${assertedAt.text()}` };
    }
    case 'confirm': {
      const authorized = [...accesses.keys()].filter((key) => accesses.get(key)!.authorized);
      const id = pick(command.authorizedOnly && authorized.length > 0 ? authorized : [...accesses.keys()], command.access);
      if (!id) return { skipped: 'no access decided', text: () => 'confirm an access' };
      const { request } = accesses.get(id)!;
      const accessedAt = instant(command.accessedAt, { consent: request.consent, access: id });
      const outcome = command.outcome === 'accessed' ? { kind: 'accessed' as const, accessedAt: accessedAt.value } : { kind: command.outcome };
      return { action: { type: 'confirm', redecAccessId: id, outcome }, text: () => `confirm ${id} ${command.outcome}${command.outcome === 'accessed' ? ` accessedAt=${accessedAt.text()}` : ''}` };
    }
  }
}

interface Subject {
  consent?: ConsentNo;
  extension?: string;
  access?: string;
}

/** The instant an anchor names for this command's subject; `now` when the subject has no such instant (yet). */
function anchorValue({ anchor }: Instant, subject: Subject, model: ReferenceModel, accesses: Map<string, AccessLogEntry>, now: number): number {
  const consent = subject.consent ? model.consents.get(subject.consent) : undefined;
  const extension = subject.extension
    ? model.extensions.find((x) => x.id === subject.extension)
    : [...model.extensions].reverse().find((x) => x.consent === subject.consent);
  const access = subject.access ? accesses.get(subject.access) : undefined;
  const values: Record<Instant['anchor'], number | null | undefined> = {
    now,
    grantedAt: consent?.grantedAt,
    validUntil: consent?.validUntil,
    revokedAt: consent?.revokedAt,
    creditGrantedAt: extension?.creditGrantedAt,
    endedAt: extension?.end?.endedAt,
    decidedAt: access?.decidedAt,
    expiresAt: access && access.decidedAt + PROFILE.authorizationTtlMs,
  };
  return values[anchor] ?? now;
}
