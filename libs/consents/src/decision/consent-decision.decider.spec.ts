import { refusalOf } from '@ledger/platform/testing';
import { BASELINE_PROFILE, GrantEvidence, GrantableConfiguration, redecConsentIdFor } from '@ledger/redec';
import { generalConsentIdFor } from '../general-consent.commands';
import { ConsentDecisionInput, DecisionItemInput, MAX_DECISION_ITEMS, decideConsentDecision } from './consent-decision.decider';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const now = Date.UTC(2026, 10, 20, 15, 0, 0);

const redec: GrantableConfiguration = {
  configurationId: 'cfg-redec',
  templateKey: 'redec-credit-evaluation',
  version: 2,
  title: 'Consulta REDEC',
  text: 'Autorizo la consulta.',
  channel: 'digital',
  captureTiming: 'deferred_external',
  redec: {
    finalityCode: '2',
    objectiveCodes: ['02', '03'],
    scopes: [{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }],
    targets: ['Banco Ejemplo'],
    obligationSourceSystem: 'core-loans',
    regulatoryProfile: 'baseline',
  },
};
const general: GrantableConfiguration = { ...redec, configurationId: 'cfg-tos', templateKey: 'tos', title: 'Términos', redec: null };
const marketing: GrantableConfiguration = { ...general, configurationId: 'cfg-marketing', templateKey: 'marketing' };

const electronic: GrantEvidence = { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-1' } };
const decisionEvidence: GrantEvidence = { kind: 'electronic', authentication: { method: 'consent_decision', reference: 'dec-1' } };
const verifiedRut = { system: 'cl-sii', type: 'rut', value: '12345678-5', verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: now - MINUTE } };

const item = (configuration: GrantableConfiguration | null, overrides: Partial<DecisionItemInput> = {}): DecisionItemInput => ({
  configurationId: configuration?.configurationId ?? 'cfg-unknown',
  configuration,
  profile: configuration?.redec ? BASELINE_PROFILE : null,
  interactionId: `int-${configuration?.configurationId ?? 'unknown'}`,
  decision: 'accepted',
  redec: configuration?.redec ? { representation: null, evidence: electronic } : undefined,
  ...overrides,
});

const given = (items: DecisionItemInput[], overrides: Partial<ConsentDecisionInput> = {}): ConsentDecisionInput => ({
  tenantId: 'tenant-1',
  occurredAt: now - 10 * MINUTE,
  sourceSystem: 'web-onboarding',
  sourceReference: 'capture-1',
  capture: 'deferred_external',
  identity: { identifiers: [verifiedRut], field: 'identifiers' },
  items,
  generalEvidence: decisionEvidence,
  now,
  ...overrides,
});

describe('a Multi-Consent decision', () => {
  it('records an accepted REDEC item as its grant, an accepted general item with the decision as evidence, and a declined item as the decision alone', () => {
    const items = decideConsentDecision(given([item(redec, { redec: { representation: null, evidence: electronic, objectiveCodes: ['02'] } }), item(general), item(marketing, { decision: 'declined' })]));
    expect(items).toEqual([
      {
        configurationId: 'cfg-redec',
        configuration: redec,
        decision: 'accepted',
        interactionId: 'int-cfg-redec',
        consent: { kind: 'redec', redecConsentId: redecConsentIdFor('tenant-1', 'int-cfg-redec'), grant: { representation: null, evidence: electronic, objectiveCodes: ['02'] } },
      },
      { configurationId: 'cfg-tos', configuration: general, decision: 'accepted', interactionId: 'int-cfg-tos', consent: { kind: 'general', consentId: generalConsentIdFor('tenant-1', 'int-cfg-tos'), evidence: decisionEvidence } },
      { configurationId: 'cfg-marketing', configuration: marketing, decision: 'declined', interactionId: 'int-cfg-marketing', consent: null },
    ]);
  });

  it('refuses the whole decision for one REDEC item whose grant breaks a rule, naming that item’s field', () => {
    const audio: GrantEvidence = { kind: 'audio_recording', recordedAt: now, mediaType: 'audio/mpeg', content: { origin: 'held', contentSha256: 'a'.repeat(64), size: 1 } };
    const refused = refusalOf(() => decideConsentDecision(given([item(general), item(redec, { redec: { representation: null, evidence: audio } })])));
    expect(refused.code).toBe('VALIDATION_ERROR');
    expect(refused.errors).toEqual([{ field: 'items[1].redec.evidence.kind', reason: 'evidence_kind_not_accepted_for_channel' }]);
    expect(refused.detail).toMatch(/^items\[1\]: /);

    const outside = refusalOf(() => decideConsentDecision(given([item(redec, { redec: { representation: null, evidence: electronic, scopeIds: ['other'] } })])));
    expect(outside.errors).toEqual([{ field: 'items[0].redec.scopeIds[0]', reason: 'not_in_configuration' }]);
  });

  it('keeps the instants the decision sends once at the top: occurredAt beyond the profile skew, or after the receipt', () => {
    expect(refusalOf(() => decideConsentDecision(given([item(general), item(redec)], { occurredAt: now - 8 * DAY }))).errors).toEqual([
      { field: 'occurredAt', reason: 'occurred_at_beyond_profile_skew' },
    ]);
    // A general consent has no skew bound: alone, the same instant is accepted.
    expect(decideConsentDecision(given([item(general)], { occurredAt: now - 8 * DAY }))).toHaveLength(1);
    expect(refusalOf(() => decideConsentDecision(given([item(marketing, { decision: 'declined' })], { occurredAt: now + 1 }))).errors).toEqual([
      { field: 'occurredAt', reason: 'occurred_at_after_receipt' },
    ]);
  });

  it('asks a redec grant of an accepted REDEC item only', () => {
    expect(refusalOf(() => decideConsentDecision(given([item(redec, { redec: undefined })]))).errors).toEqual([{ field: 'items[0].redec', reason: 'required' }]);
    expect(refusalOf(() => decideConsentDecision(given([item(redec, { decision: 'declined' })]))).errors).toEqual([{ field: 'items[0].redec', reason: 'not_for_declined_item' }]);
    expect(refusalOf(() => decideConsentDecision(given([item(general, { redec: { representation: null, evidence: electronic } })]))).errors).toEqual([
      { field: 'items[0].redec', reason: 'not_for_general_configuration' },
    ]);
    expect(decideConsentDecision(given([item(redec, { decision: 'declined', redec: undefined })]))[0].consent).toBeNull();
  });

  it('refuses an unknown configuration, one captured on the consent page, and the same configuration twice, each by its item', () => {
    const unknown = refusalOf(() => decideConsentDecision(given([item(general), item(null)])));
    expect([unknown.code, unknown.errors]).toEqual(['NOT_FOUND', [{ field: 'items[1].configurationId', reason: 'NOT_FOUND' }]]);
    const embedded = { ...redec, captureTiming: 'embedded' as const };
    const onThePage = refusalOf(() => decideConsentDecision(given([item(embedded)])));
    expect([onThePage.code, onThePage.errors]).toEqual(['redec_capture_is_embedded', [{ field: 'items[0].configurationId', reason: 'redec_capture_is_embedded' }]]);
    const declinedOnThePage = refusalOf(() => decideConsentDecision(given([item({ ...general, captureTiming: 'embedded' }, { decision: 'declined' })])));
    expect(declinedOnThePage.code).toBe('capture_is_embedded');
    expect(refusalOf(() => decideConsentDecision(given([item(general), item(redec), item(general, { decision: 'declined' })]))).errors).toEqual([
      { field: 'items[2].configurationId', reason: 'duplicate' },
    ]);
  });

  it('checks the customer’s identifiers against every REDEC item’s channel and profile, unless they were checked when the session opened', () => {
    const unverified = { identifiers: [{ ...verifiedRut, verification: null }], field: 'identifiers' as const };
    const refused = refusalOf(() => decideConsentDecision(given([item(general), item(redec)], { identity: unverified })));
    expect([refused.reason, refused.errors]).toEqual(['identifiers_do_not_satisfy_profile', [{ field: 'identifiers[0].verification', reason: 'verification_required' }]]);
    expect(decideConsentDecision(given([item(general)], { identity: unverified }))).toHaveLength(1);
    expect(decideConsentDecision(given([item(redec)], { identity: null }))).toHaveLength(1);
  });

  it('holds between one and twenty items', () => {
    expect(refusalOf(() => decideConsentDecision(given([]))).errors).toEqual([{ field: 'items', reason: 'too_few_items' }]);
    const many = Array.from({ length: MAX_DECISION_ITEMS + 1 }, (_, index) => item({ ...general, configurationId: `cfg-${index}` }));
    expect(refusalOf(() => decideConsentDecision(given(many))).errors).toEqual([{ field: 'items', reason: 'too_many_items' }]);
    expect(decideConsentDecision(given(many.slice(1)))).toHaveLength(MAX_DECISION_ITEMS);
  });

  it('decides an embedded decision at the receipt of the acceptance, with the evidence of the consent page', () => {
    const embedded = { ...redec, captureTiming: 'embedded' as const };
    const page: GrantEvidence = { kind: 'electronic', authentication: { method: 'embedded_consent_page', reference: 'ses-1' } };
    const items = decideConsentDecision(given([item(embedded, { redec: { representation: null, evidence: page } })], { capture: 'embedded', occurredAt: now, identity: null }));
    expect(items[0].consent).toMatchObject({ kind: 'redec', grant: { evidence: page } });
    expect(refusalOf(() => decideConsentDecision(given([item(redec)], { capture: 'embedded', occurredAt: now }))).code).toBe('configuration_not_embedded');
  });
});
