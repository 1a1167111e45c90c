import { Action, Answer, CONSENTS, ConsentNo, ConsentRead, Lookup, OBLIGATION_SOURCE_SYSTEM, Obligation, consentCodeOf } from './ledger';

/** An authorization the system answered, kept so a later confirmation can be judged against what it allowed. */
export interface AccessLogEntry {
  request: Extract<Action, { type: 'authorize' }>;
  decidedAt: number;
  authorized: boolean;
}

export interface StepFacts {
  action: Action | null;
  answer: Answer | null;
  now: number;
  reads: ReadonlyMap<ConsentNo, ConsentRead | null>;
  lookup(obligation: Obligation): Lookup;
  access(redecAccessId: string): AccessLogEntry | undefined;
}

/**
 * The invariants, checked on the real system's own answers after
 * every step, apart from the comparison with the model: they hold whatever
 * the model says, so a bug both share still shows here.
 */
export function invariantViolations(step: StepFacts): string[] {
  const violations: string[] = [];
  for (const consent of CONSENTS) {
    const read = step.reads.get(consent);
    if (!read) continue;
    const name = `consent#${consent}`;
    if ((read.status === 'revoked') !== (read.revocation?.effective === true)) {
      violations.push(`${name}: status ${read.status} with revocation.effective ${read.revocation?.effective} (revoked iff an effective revocation)`);
    }
    const enables = read.status === 'granted' || read.status === 'extended';
    if ((read.retentionUntil === null) !== enables || (read.retentionBasis === null) !== enables) {
      violations.push(`${name}: status ${read.status} with retentionUntil ${read.retentionUntil}, basis ${read.retentionBasis} (null exactly while the consent enables access)`);
    }
    for (const x of read.creditExtensions) {
      const superseding = x.supersededByObligationReference;
      if (!superseding || !x.effective) continue;
      // Decision 0054: a superseding obligation inherits nothing; only an extension of its own, of an earlier credit, keeps it.
      const own = read.creditExtensions.filter((y) => y.creditOperationReference === superseding);
      if (own.some((y) => y.effective && y.creditGrantedAt > x.creditGrantedAt)) violations.push(`${superseding} superseded an obligation of ${name} after it but keeps the consent`);
      const { consentCode } = step.lookup({ sourceSystem: OBLIGATION_SOURCE_SYSTEM, obligationReference: superseding });
      if (consentCode === consentCodeOf(consent) && !own.some((y) => y.effective)) violations.push(`${superseding} superseded an obligation of ${name} but resolves to its code`);
    }
  }
  const { action, answer } = step;
  if (action?.type === 'authorize' && answer?.accepted && answer.decision?.status === 'authorized') {
    violations.push(...accessAllowed(action, step.reads.get(action.consent) ?? null, step.now, 'authorized'));
  }
  if (action?.type === 'confirm' && action.outcome.kind === 'accessed' && answer?.accepted) {
    const entry = step.access(action.redecAccessId);
    if (entry) violations.push(...accessAllowed(entry.request, step.reads.get(entry.request.consent) ?? null, Math.max(action.outcome.accessedAt, entry.decidedAt), 'confirmed accessed'));
  }
  return violations;
}

/**
 * Nothing authorized in `initial_window` at or after any revokedAt or past
 * the window; `manage_existing_obligation` only for an extension covering
 * that exact obligation then (active, for an authorization now).
 */
function accessAllowed(request: AccessLogEntry['request'], read: ConsentRead | null, at: number, what: string): string[] {
  if (!read) return [`${what} on a consent never granted`];
  if (request.mode.consentAuthorizationMode === 'initial_window') {
    if (read.revocation && read.revocation.revokedAt <= at) return [`initial_window ${what} at ${at}, at or after revokedAt ${read.revocation.revokedAt}`];
    if (at < read.grantedAt || at > read.initialAccessValidUntil) return [`initial_window ${what} at ${at}, outside the window [${read.grantedAt}, ${read.initialAccessValidUntil}]`];
    return [];
  }
  if (request.mode.accessPurpose !== 'manage_existing_obligation') return [`${request.mode.accessPurpose} ${what}`];
  const { sourceSystem, obligationReference } = request.obligation;
  const covering = read.creditExtensions.find(
    (x) => x.effective && x.creditOperationReference === obligationReference && x.creditGrantedAt <= at && (x.endedAt === null || at < x.endedAt) && x.objectiveCode === request.objectiveCode,
  );
  if (sourceSystem !== OBLIGATION_SOURCE_SYSTEM || !covering) return [`manage_existing_obligation ${what} for ${sourceSystem}/${obligationReference} without an effective extension covering it`];
  return [];
}
