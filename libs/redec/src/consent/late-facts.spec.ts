import { decideAccess } from '../access/access.decider';
import { accessRequest } from '../access/testing/access-fixtures';
import { BASELINE_PROFILE } from '../profiles/profile-catalog';
import { ConsentEvent } from './consent.events';
import { ConsentState } from './consent.state';
import { enabledForObligationAt, extensionIneffectiveReason, revocationEffect } from './enablement';
import { decideAnnulExtensionEnd, decideEndExtension, decideRegisterExtension, decideRevoke, RegisterExtensionRequest } from './lifecycle.decider';
import { deriveStatus, regulatoryRepresentation } from './regulatory-representation';
import { givenConsent, grantedAt, validUntil } from './testing/consent-fixtures';

/**
 * Decision 0054: a consent's answers follow from when its facts happened,
 * never from the order the bank reported them. Each pair below states the
 * same facts in both orders; where one order refuses a fact the other
 * records, the recorded one keeps nothing alive and every answer agrees.
 */

const DAY = 86_400_000;
const MINUTE = 60_000;
const now = grantedAt + 6 * DAY;
const annulment = { reason: 'recorded by mistake', sourceReference: 'ticket-1' };
const revokeAt = (occurredAt: number) => (consent: ConsentState | null) =>
  decideRevoke(consent, BASELINE_PROFILE, { channel: 'digital', occurredAt, sourceType: 'direct', identityAssurance: 'client_authenticated' }, 'rev-1', now);
const credit = (creditOperationReference: string, creditGrantedAt: number): RegisterExtensionRequest => ({
  customerTenantId: 'cus-1',
  objectiveCode: '02',
  creditOperationReference,
  creditGrantedAt,
  sourceSystem: 'core-loans',
  sourceReference: `loan-${creditOperationReference}`,
});
const registerCredit = (reference: string, creditGrantedAt: number, id = `x-${reference}`) => (consent: ConsentState | null) =>
  decideRegisterExtension(consent, { extensionEnded: false }, credit(reference, creditGrantedAt), id, now);
const endOf = (id: string, request: Parameters<typeof decideEndExtension>[3], at = now) => (consent: ConsentState | null) =>
  decideEndExtension(consent, BASELINE_PROFILE, id, request, at);
const manage = (reference: string) =>
  accessRequest({
    consentAuthorizationMode: 'credit_lifecycle_extension',
    accessPurpose: 'manage_existing_obligation',
    reportingObligation: { status: 'granted', sourceSystem: 'core-loans', sourceReference: reference, assertedAt: now },
    sourceReference: `access-${reference}`,
  });

/** What a bank and an auditor can observe of a consent, without the instants at which the service learned each fact. */
function answers(consent: ConsentState, at = now) {
  const { status, revocation, retentionUntil, retentionBasis, creditExtensions } = regulatoryRepresentation(consent, at);
  return {
    status,
    revocation: revocation && { revokedAt: revocation.revokedAt, effective: revocation.effective, effectiveAt: revocation.effectiveAt },
    retentionUntil,
    retentionBasis,
    keptAlive: creditExtensions.filter((e) => e.effective).map((e) => [e.creditOperationReference, e.endedAt]),
  };
}

/** Folds the recorded facts of a step onto the facts before it: what the stream holds after it. */
const record = (before: ConsentEvent[], decide: (consent: ConsentState | null) => ConsentEvent[]) => [...before, ...givenConsent(...before).when(decide).recorded];

describe('a credit granted after the revocation, reported before it (issue example 1)', () => {
  const creditAt = now - DAY;
  const revokedAt = now - 3 * DAY;
  const creditFirst = record(record([], registerCredit('op-1', creditAt)), revokeAt(revokedAt));

  it('records the revocation as effective from its occurredAt and keeps the extension as a fact that enables nothing', () => {
    givenConsent(...creditFirst.slice(0, 1)).when(revokeAt(revokedAt)).thenMatches([{ type: 'RevocationRecorded', data: { revokedAt, effective: true } }]);
    const consent = givenConsent(...creditFirst).state!;
    expect(revocationEffect(consent)).toEqual({ effective: true, effectiveAt: revokedAt });
    expect(regulatoryRepresentation(consent, now).creditExtensions).toEqual([
      expect.objectContaining({ creditOperationReference: 'op-1', status: 'active', effective: false, ineffectiveReason: 'credit_granted_after_revocation' }),
    ]);
    expect(deriveStatus(consent, now).status).toBe('revoked');
    expect(decideAccess(consent, manage('op-1'), now)).toEqual({ status: 'denied', denyReasonCode: 'redec_consent_revoked' });
  });

  it('answers as the other order does, where the extension is refused', () => {
    const revokedFirst = record([], revokeAt(revokedAt));
    givenConsent(...revokedFirst).when(registerCredit('op-1', creditAt)).thenRefused('redec_credit_granted_after_revocation');
    expect(answers(givenConsent(...creditFirst).state!)).toEqual(answers(givenConsent(...revokedFirst).state!));
    expect(decideAccess(givenConsent(...revokedFirst).state!, manage('op-1'), now)).toEqual(decideAccess(givenConsent(...creditFirst).state!, manage('op-1'), now));
  });

  it('takes the revocation for the later fact at the same millisecond: a credit granted at revokedAt keeps nothing alive', () => {
    const consent = givenConsent(...record(record([], registerCredit('op-1', revokedAt)), revokeAt(revokedAt))).state!;
    expect(extensionIneffectiveReason(consent, consent.creditExtensions[0])).toBe('credit_granted_after_revocation');
    expect(revocationEffect(consent)).toEqual({ effective: true, effectiveAt: revokedAt });
  });

  it('still keeps a revocation without effect for a credit granted before it, in either order', () => {
    const early = now - 4 * DAY;
    const creditThenRevocation = givenConsent(...record(record([], registerCredit('op-1', early)), revokeAt(revokedAt))).state!;
    const revocationThenCredit = givenConsent(...record(record([], revokeAt(revokedAt)), registerCredit('op-1', early))).state!;
    expect(answers(creditThenRevocation)).toEqual({ status: 'extended', revocation: { revokedAt, effective: false, effectiveAt: null }, retentionUntil: null, retentionBasis: null, keptAlive: [['op-1', null]] });
    expect(answers(revocationThenCredit)).toEqual(answers(creditThenRevocation));
  });
});

describe('the end of an obligation reported after a revocation it preceded', () => {
  it('makes the kept revocation effective from its own revokedAt, and records that it took effect', () => {
    const revokedAt = now - 2 * DAY;
    const endedAt = now - 3 * DAY;
    const kept = record(record([], registerCredit('op-1', now - 4 * DAY)), revokeAt(revokedAt));
    givenConsent(...kept)
      .when(endOf('x-op-1', { endReason: 'obligation_extinguished', occurredAt: endedAt }))
      .thenMatches([{ type: 'CreditExtensionEnded', data: { endedAt } }, { type: 'RevocationTookEffect', data: { effectiveAt: revokedAt } }]);
    const endedFirst = record(record(record([], registerCredit('op-1', now - 4 * DAY)), endOf('x-op-1', { endReason: 'obligation_extinguished', occurredAt: endedAt })), revokeAt(revokedAt));
    const endedLast = record(kept, endOf('x-op-1', { endReason: 'obligation_extinguished', occurredAt: endedAt }));
    expect(answers(givenConsent(...endedLast).state!)).toEqual(answers(givenConsent(...endedFirst).state!));
    expect(answers(givenConsent(...endedLast).state!).revocation).toEqual({ revokedAt, effective: true, effectiveAt: revokedAt });
  });

  it('at the revocation instant, lets the revocation take effect then', () => {
    const revokedAt = now - 2 * DAY;
    const consent = givenConsent(...record(record(record([], registerCredit('op-1', now - 4 * DAY)), revokeAt(revokedAt)), endOf('x-op-1', { endReason: 'obligation_extinguished', occurredAt: revokedAt }))).state!;
    expect(revocationEffect(consent)).toEqual({ effective: true, effectiveAt: revokedAt });
    expect(enabledForObligationAt(consent, { sourceSystem: 'core-loans', obligationReference: 'op-1' }, revokedAt - 1)).toBe(true);
    expect(enabledForObligationAt(consent, { sourceSystem: 'core-loans', obligationReference: 'op-1' }, revokedAt)).toBe(false);
  });
});

describe('a superseding obligation registered before the end that names it (issue example 3)', () => {
  const both = record(record([], registerCredit('op-A', now - 4 * DAY)), registerCredit('op-B', now - 3 * DAY));
  const superseded = endOf('x-op-A', { endReason: 'superseded_by_new_obligation', supersededByObligationReference: 'op-B', occurredAt: now - 2 * DAY });
  const registeredFirst = record(both, superseded);

  it('keeps the new obligation as a fact that does not inherit the consent', () => {
    const consent = givenConsent(...registeredFirst).state!;
    expect(regulatoryRepresentation(consent, now).creditExtensions.map((e) => [e.creditOperationReference, e.status, e.effective, e.ineffectiveReason])).toEqual([
      ['op-A', 'ended', true, null],
      ['op-B', 'active', false, 'superseding_obligation'],
    ]);
    expect(deriveStatus(consent, now).status).toBe('granted');
    expect(decideAccess(consent, manage('op-B'), now)).toEqual({ status: 'denied', denyReasonCode: 'redec_no_active_extension_for_obligation' });
  });

  it('answers as the other order does, where the new obligation is refused', () => {
    const endedFirst = record(record([], registerCredit('op-A', now - 4 * DAY)), superseded);
    givenConsent(...endedFirst).when(registerCredit('op-B', now - 3 * DAY)).thenRefused('redec_superseding_obligation_does_not_inherit_consent');
    expect(answers(givenConsent(...registeredFirst).state!)).toEqual(answers(givenConsent(...endedFirst).state!));
  });

  it('lets a kept revocation take effect when the superseding end leaves nothing that keeps the consent', () => {
    const kept = record(both, revokeAt(now - MINUTE));
    expect(givenConsent(...kept).state!.revocation).not.toBeNull();
    // op-A ends, op-B stops counting: nothing keeps the consent from the end of op-A on.
    givenConsent(...kept)
      .when(superseded)
      .thenMatches([{ type: 'CreditExtensionEnded' }, { type: 'RevocationTookEffect', data: { effectiveAt: now - MINUTE } }]);
  });

  it('gives the obligation back its effect when the end that named it is annulled', () => {
    const annulled = record(registeredFirst, (consent) => decideAnnulExtensionEnd(consent, 'x-op-A', annulment, now));
    expect(regulatoryRepresentation(givenConsent(...annulled).state!, now).creditExtensions.every((e) => e.effective)).toBe(true);
    expect(deriveStatus(givenConsent(...annulled).state!, now).status).toBe('extended');
  });
});

describe('supersession weighed in the order the credits were granted', () => {
  it('leaves an obligation its own extension, of a credit granted before the one whose end names it, in either order', () => {
    const older = registerCredit('op-B', now - 4 * DAY);
    const ending = [registerCredit('op-A', now - 3 * DAY), endOf('x-op-A', { endReason: 'superseded_by_new_obligation', supersededByObligationReference: 'op-B', occurredAt: now - DAY })];
    const olderFirst = givenConsent(...[older, ...ending].reduce(record, [])).state!;
    const olderLast = givenConsent(...[...ending, older].reduce(record, [])).state!;
    expect(answers(olderFirst).keptAlive).toEqual([['op-B', null], ['op-A', now - DAY]]);
    expect(answers(olderLast)).toEqual(answers(olderFirst));
  });

  it('takes an obligation whose credit was granted at the same instant as the one whose end names it for the new one, whatever the references', () => {
    for (const [old, successor] of [
      ['op-A', 'op-B'],
      ['op-B', 'op-A'],
    ]) {
      const together = [registerCredit(old, now - 4 * DAY), endOf(`x-${old}`, { endReason: 'superseded_by_new_obligation', supersededByObligationReference: successor, occurredAt: now - DAY })];
      givenConsent(...together.reduce(record, [])).when(registerCredit(successor, now - 4 * DAY)).thenRefused('redec_superseding_obligation_does_not_inherit_consent');
      const registeredFirst = givenConsent(...[registerCredit(successor, now - 4 * DAY), ...together].reduce(record, [])).state!;
      expect(regulatoryRepresentation(registeredFirst, now).creditExtensions.find((e) => e.creditOperationReference === successor)).toMatchObject({ effective: false, ineffectiveReason: 'superseding_obligation' });
    }
  });

  it('settles two ends that name each other by the earlier credit, whichever was reported first', () => {
    const credits = [registerCredit('op-A', now - 4 * DAY), registerCredit('op-B', now - 3 * DAY)];
    const endA = endOf('x-op-A', { endReason: 'superseded_by_new_obligation', supersededByObligationReference: 'op-B', occurredAt: now - DAY });
    const endB = endOf('x-op-B', { endReason: 'superseded_by_new_obligation', supersededByObligationReference: 'op-A', occurredAt: now - DAY });
    const aFirst = givenConsent(...[...credits, endA, endB].reduce(record, [])).state!;
    const bFirst = givenConsent(...[...credits, endB, endA].reduce(record, [])).state!;
    // op-A's credit came first: its end holds, and op-B, the new obligation, keeps nothing.
    expect(regulatoryRepresentation(aFirst, now).creditExtensions.map((e) => [e.creditOperationReference, e.effective])).toEqual([
      ['op-A', true],
      ['op-B', false],
    ]);
    expect(answers(bFirst)).toEqual(answers(aFirst));
  });
});

describe('what decision 0054 settles about ends and expiry', () => {
  it('takes an end again, with another reason, once the end reported by mistake was annulled', () => {
    const ended = record(record([], registerCredit('op-1', now - 4 * DAY)), endOf('x-op-1', { endReason: 'obligation_extinguished', occurredAt: now - DAY }));
    givenConsent(...ended).when(endOf('x-op-1', { endReason: 'acceleration_executed' })).thenRefused('redec_credit_extension_already_ended');
    const annulled = record(ended, (consent) => decideAnnulExtensionEnd(consent, 'x-op-1', annulment, now));
    expect(deriveStatus(givenConsent(...annulled).state!, now).status).toBe('extended');
    const endedAgain = record(annulled, endOf('x-op-1', { endReason: 'acceleration_executed', occurredAt: now - MINUTE }));
    expect(givenConsent(...endedAgain).state!.creditExtensions[0]).toMatchObject({ status: 'ended', endReason: 'acceleration_executed', endedAt: now - MINUTE });
  });

  it('brings an expired consent back to extended when a credit granted inside the window is reported after it ended', () => {
    const afterWindow = validUntil + 2 * DAY;
    expect(deriveStatus(givenConsent().state!, afterWindow).status).toBe('expired');
    const late = (consent: ConsentState | null) => decideRegisterExtension(consent, { extensionEnded: false }, credit('op-1', validUntil - DAY), 'x-1', afterWindow);
    const extended = givenConsent().when(late).after!;
    expect(deriveStatus(extended, afterWindow)).toEqual({ status: 'extended', retentionUntil: null, retentionBasis: null });
    expect(decideAccess(extended, { ...manage('op-1'), reportingObligation: { ...manage('op-1').reportingObligation, assertedAt: afterWindow } }, afterWindow)).toEqual({ status: 'authorized' });
  });

  it('names the retention basis after the earlier credit when two obligations ended at the same instant, whichever was reported first', () => {
    const endedAt = validUntil + DAY;
    const obligations = { 'op-1': { credit: grantedAt + DAY, endReason: 'obligation_extinguished' }, 'op-2': { credit: grantedAt + 2 * DAY, endReason: 'acceleration_executed' } } as const;
    const reportedIn = (order: Array<keyof typeof obligations>) =>
      givenConsent(
        ...[
          ...order.map((reference) => registerCredit(reference, obligations[reference].credit)),
          ...order.map((reference) => endOf(`x-${reference}`, { endReason: obligations[reference].endReason, occurredAt: endedAt }, endedAt + 1)),
        ].reduce(record, []),
      ).state!;
    expect(deriveStatus(reportedIn(['op-1', 'op-2']), endedAt + DAY).retentionBasis).toBe('obligation_extinguished');
    expect(deriveStatus(reportedIn(['op-2', 'op-1']), endedAt + DAY).retentionBasis).toBe('obligation_extinguished');
  });
});
