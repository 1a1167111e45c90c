/**
 * What the model-based test asks of a ledger and what it compares: the real
 * pure code (lifecycle-system.ts) and the reference model
 * (reference-model.ts) both take these actions and answer these reads, so
 * the property can run one sequence against both and compare every answer.
 */

export const TENANT_ID = 'ten-1';
/** Every consent's obligation source system, frozen at publication (docs/reference/configurations.md, "REDEC terms"). */
export const OBLIGATION_SOURCE_SYSTEM = 'core-loans';
/** Another bank system: its obligations are never this consent's (docs/reference/obligations.md, "Binding an obligation"). */
export const OTHER_SOURCE_SYSTEM = 'branch-desk';
export const SCOPE = { scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' };
export const GRANTED_OBJECTIVES = ['02', '03'];
/** Baseline Regulatory Profile values (baseline.profile.json, decision 0023). */
export const PROFILE = { maxOccurredAtSkewMs: 7 * 86_400_000, callerClockSkewMs: 5 * 60_000, authorizationTtlMs: 10 * 60_000 };

export const CONSENTS = [1, 2, 3] as const;
export type ConsentNo = (typeof CONSENTS)[number];
export const consentIdOf = (consent: ConsentNo) => `con-${consent}`;
export const consentCodeOf = (consent: ConsentNo) => `MODEL${String(consent).padStart(15, '0')}`;

/** Two customers, so consents 1 and 2 may share one and 3 may not; UUIDs, since a UUID compares without regard to case (decision 0023 rule 6). */
export const CUSTOMERS = ['0f1e2d3c-4b5a-4678-9abc-def012345678', '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d'] as const;

export const OBLIGATION_REFERENCES = ['op-1', 'op-2', 'op-3', 'op-4'] as const;
export interface Obligation {
  sourceSystem: string;
  obligationReference: string;
}
/** The obligations whose lookup is compared after every step. */
export const OBLIGATION_POOL: Obligation[] = [OBLIGATION_SOURCE_SYSTEM, OTHER_SOURCE_SYSTEM].flatMap((sourceSystem) =>
  OBLIGATION_REFERENCES.map((obligationReference) => ({ sourceSystem, obligationReference })),
);

export type EndReason = 'obligation_extinguished' | 'acceleration_executed' | 'superseded_by_new_obligation';
export type BindingKind = 'consent' | 'legacy_pre_redec' | 'no_applicable_consent';
export type AccessMode =
  | { consentAuthorizationMode: 'initial_window' }
  | { consentAuthorizationMode: 'credit_lifecycle_extension'; accessPurpose: 'manage_existing_obligation' | 'evaluate_new_credit' };
export type AccessOutcome = { kind: 'accessed'; accessedAt: number } | { kind: 'failed' | 'cancelled' };

/** One request, with every instant and id resolved; ids are chosen by the test so both sides name things alike. */
export type Action =
  | { type: 'grant'; consent: ConsentNo; customerId: string; grantedAt: number; initialAccessValidUntil: number }
  | { type: 'revoke'; consent: ConsentNo; occurredAt: number }
  | {
      type: 'registerExtension';
      consent: ConsentNo;
      creditExtensionId: string;
      customerTenantId: string;
      objectiveCode: string;
      creditOperationReference: string;
      creditGrantedAt: number;
      sourceReference?: string;
    }
  | { type: 'endExtension'; consent: ConsentNo; creditExtensionId: string; endReason: EndReason; supersededByObligationReference?: string; occurredAt?: number }
  | { type: 'annulExtension' | 'annulExtensionEnd'; consent: ConsentNo; creditExtensionId: string }
  | { type: 'bind'; bindingId: string; obligation: Obligation; kind: BindingKind; consent: ConsentNo | null; obligationGrantedAt: number }
  | { type: 'annulBinding'; bindingId: string }
  | { type: 'authorize'; redecAccessId: string; consent: ConsentNo; mode: AccessMode; obligation: Obligation; objectiveCode: string; assertedAt: number }
  | { type: 'confirm'; redecAccessId: string; outcome: AccessOutcome };

export interface AccessDecision {
  status: 'authorized' | 'denied';
  denyReasonCode: string | null;
  expiresAt: number | null;
}

/** Accepted (with the decision, for authorize), or refused with the error's code and, for a VALIDATION_ERROR, its reason. */
export type Answer = { accepted: true; decision?: AccessDecision } | { accepted: false; code: string; reason?: string };

export interface ExtensionRead {
  creditExtensionId: string;
  objectiveCode: string;
  creditOperationReference: string;
  creditGrantedAt: number;
  extendedAt: number;
  status: 'active' | 'ended';
  endReason: EndReason | null;
  endedAt: number | null;
  supersededByObligationReference: string | null;
  /** Decision 0054: whether it keeps the consent for its obligation, and why not. */
  effective: boolean;
  ineffectiveReason: string | null;
}

/** The parts of the regulatory representation (docs/reference/regulatory-representation.md) that later facts and the clock change. */
export interface ConsentRead {
  status: 'granted' | 'extended' | 'revoked' | 'expired';
  grantedAt: number;
  initialAccessValidUntil: number;
  revocation: { revokedAt: number; effective: boolean; effectiveAt: number | null; correctedAt: number | null } | null;
  creditExtensions: ExtensionRead[];
  retentionUntil: number | null;
  retentionBasis: string | null;
}

export interface Lookup {
  result: 'consent_code' | 'legacy_pre_redec' | 'no_applicable_consent' | 'unresolved' | 'ambiguous';
  consentCode: string | null;
}

export interface Ledger {
  apply(action: Action, now: number): Answer;
  /** Null while the consent has not been granted. */
  read(consent: ConsentNo, now: number): ConsentRead | null;
  lookup(obligation: Obligation): Lookup;
}
