import type { RecordedEvent } from '@ledger/event-store';
import { DomainError } from '@ledger/platform';
import {
  AccessRecord,
  AccessRequest,
  BASELINE_PROFILE,
  ConsentEvent,
  ConsentGranted,
  ConsentState,
  ObligationBindings,
  ObligationDocument,
  ObligationEvent,
  checkAccessRequest,
  decideAnnulBinding,
  decideAnnulExtension,
  decideAnnulExtensionEnd,
  decideAuthorize,
  decideBind,
  decideConfirm,
  decideEndExtension,
  decideRegisterExtension,
  decideRevoke,
  deriveStatus,
  evolveAccess,
  evolveConsent,
  evolveObligationBindings,
  lookupOf,
  obligationDocumentId,
  obligationsProjection,
  regulatoryRepresentation,
} from '@ledger/redec';
import {
  Action,
  Answer,
  CONSENTS,
  ConsentNo,
  ConsentRead,
  GRANTED_OBJECTIVES,
  Ledger,
  Lookup,
  OBLIGATION_SOURCE_SYSTEM,
  Obligation,
  SCOPE,
  TENANT_ID,
  consentCodeOf,
  consentIdOf,
} from './ledger';

const ANNULMENT = { reason: 'recorded by mistake', sourceReference: 'ticket-1' };
/** The access policy authorizeAccess and confirmAccess take from the consent's profile (baseline here). */
const POLICY = { callerClockSkewMs: BASELINE_PROFILE.callerClockSkewMs, authorizationTtlMs: BASELINE_PROFILE.authorizationTtlMs };

/**
 * The real pure code the service runs, composed as the application functions
 * compose it (consent-lifecycle.ts, access.ts, bind-obligation.ts and the
 * register handler's `obligationElsewhere`), with the store replaced by
 * arrays: each consent's and obligation's facts folded with the real evolve
 * functions, and the obligations read model folded with the real projection.
 */
export class LifecycleSystem implements Ledger {
  private readonly consents = new Map<ConsentNo, { state: ConsentState; revision: number }>();
  private readonly obligationStreams = new Map<string, ObligationBindings>();
  private readonly bindingObligations = new Map<string, Obligation>();
  private readonly documents = new Map<string, ObligationDocument | null>();
  private readonly accesses = new Map<string, AccessRecord>();
  private position = 0;

  apply(action: Action, now: number): Answer {
    try {
      return this.run(action, now);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return error.code === 'VALIDATION_ERROR' ? { accepted: false, code: error.code, reason: error.reason } : { accepted: false, code: error.code };
    }
  }

  read(consent: ConsentNo, now: number): ConsentRead | null {
    const state = this.consents.get(consent)?.state;
    if (!state) return null;
    const representation = regulatoryRepresentation(state, now);
    const derived = deriveStatus(state, now);
    if (derived.status !== representation.status) throw new Error(`deriveStatus says ${derived.status}, the representation ${representation.status}`);
    const { status, grantedAt, initialAccessValidUntil, revocation, creditExtensions, retentionUntil, retentionBasis } = representation;
    return {
      status,
      grantedAt,
      initialAccessValidUntil,
      revocation: revocation && { revokedAt: revocation.revokedAt, effective: revocation.effective, effectiveAt: revocation.effectiveAt, correctedAt: revocation.correctedAt },
      creditExtensions: creditExtensions.map((x) => ({ ...x })),
      retentionUntil,
      retentionBasis,
    };
  }

  /** The consent-code query: the obligation's document in the read model and the consents it names, answered by lookupOf. */
  lookup(obligation: Obligation): Lookup {
    return lookupOf(this.documents.get(documentIdOf(obligation)) ?? null, (id) => this.stateOf(CONSENTS.find((c) => consentIdOf(c) === id)!));
  }

  private run(action: Action, now: number): Answer {
    switch (action.type) {
      case 'grant':
        this.appendToConsent(action.consent, [grantOf(action, now)]);
        return { accepted: true };
      case 'revoke': {
        const request = { channel: 'digital' as const, occurredAt: action.occurredAt, sourceType: 'direct' as const, identityAssurance: 'client_authenticated' };
        return this.changeConsent(action.consent, (consent) => decideRevoke(consent, consent && BASELINE_PROFILE, request, `rev-${action.consent}`, now));
      }
      case 'registerExtension': {
        const { consent: no, creditExtensionId, type: _type, ...request } = action;
        const granted = this.stateOf(no);
        if (!granted) throw new DomainError('not_found', 'NOT_FOUND', 'No such consent.');
        // registerCreditExtension: "ended on any consent" comes from the obligation's document in the read model.
        const document = this.documents.get(documentIdOf({ sourceSystem: granted.grant.obligationSourceSystem, obligationReference: request.creditOperationReference }));
        const elsewhere = { extensionEnded: document?.creditExtensions.some((e) => e.ended) ?? false };
        return this.changeConsent(no, (consent) => decideRegisterExtension(consent, elsewhere, { ...request, sourceSystem: OBLIGATION_SOURCE_SYSTEM }, creditExtensionId, now));
      }
      case 'endExtension': {
        const { consent: no, creditExtensionId, endReason, supersededByObligationReference, occurredAt } = action;
        const request = { endReason, supersededByObligationReference, occurredAt };
        return this.changeConsent(no, (consent) => decideEndExtension(consent, consent && BASELINE_PROFILE, creditExtensionId, request, now));
      }
      case 'annulExtension':
        return this.changeConsent(action.consent, (consent) => decideAnnulExtension(consent, action.creditExtensionId, ANNULMENT, now));
      case 'annulExtensionEnd':
        return this.changeConsent(action.consent, (consent) => decideAnnulExtensionEnd(consent, action.creditExtensionId, ANNULMENT, now));
      case 'bind':
        return this.bind(action, now);
      case 'annulBinding': {
        // annulBinding finds the obligation of a binding through the read model.
        const obligation = this.bindingObligations.get(action.bindingId);
        if (!obligation) throw new DomainError('not_found', 'NOT_FOUND', 'No such binding.');
        const event = decideAnnulBinding(this.bindingsOf(obligation), action.bindingId, ANNULMENT, now);
        this.appendToObligation(obligation, event);
        return { accepted: true };
      }
      case 'authorize':
        return this.authorize(action, now);
      case 'confirm': {
        const record = this.accesses.get(action.redecAccessId) ?? null;
        const consent = record && this.stateOf(CONSENTS.find((c) => consentIdOf(c) === record.decision.redecConsentId)!);
        const confirmed = decideConfirm(record, consent, null, POLICY, action.outcome, now);
        this.accesses.set(action.redecAccessId, evolveAccess(record, confirmed)!);
        return { accepted: true };
      }
    }
  }

  private bind(action: Extract<Action, { type: 'bind' }>, now: number): Answer {
    const request = {
      ...action.obligation,
      kind: action.kind,
      redecConsentId: action.consent && consentIdOf(action.consent),
      obligationGrantedAt: action.obligationGrantedAt,
    };
    const consent = action.kind === 'consent' && action.consent ? this.stateOf(action.consent) : null;
    const decision = decideBind(this.bindingsOf(action.obligation), request, consent, BASELINE_PROFILE, { bindingId: action.bindingId }, now);
    if (decision.kind === 'bound') {
      this.bindingObligations.set(action.bindingId, action.obligation);
      this.appendToObligation(action.obligation, decision.event);
    }
    return { accepted: true };
  }

  private authorize(action: Extract<Action, { type: 'authorize' }>, now: number): Answer {
    const request: AccessRequest = {
      authorizationBasis: 'consent',
      ...action.mode,
      redecConsentId: consentIdOf(action.consent),
      ...SCOPE,
      objectiveCode: action.objectiveCode,
      reportingObligation: { status: 'granted', ...action.obligation, sourceReference: action.obligation.obligationReference, assertedAt: action.assertedAt },
      sourceSystem: 'origination',
      sourceReference: action.redecAccessId,
    };
    checkAccessRequest(request);
    const entry = this.consents.get(action.consent);
    const outcome = decideAuthorize({
      existing: null,
      consent: entry?.state ?? null,
      // This model files no rights requests: no subject is ever blocked.
      processingBlocks: null,
      consentRevision: entry?.revision ?? null,
      policy: POLICY,
      request,
      requestSha256: action.redecAccessId,
      redecAccessId: action.redecAccessId,
      now,
    });
    if (outcome.replayed) throw new Error('a new access request was answered as a replay');
    this.accesses.set(action.redecAccessId, evolveAccess(null, outcome.event)!);
    const { status, denyReasonCode, expiresAt } = outcome.event.data;
    return { accepted: true, decision: { status, denyReasonCode, expiresAt } };
  }

  private stateOf(consent: ConsentNo): ConsentState | null {
    return this.consents.get(consent)?.state ?? null;
  }

  /** changeConsent: decide on the consent's facts, append what was decided. */
  private changeConsent(no: ConsentNo, decide: (consent: ConsentState | null) => ConsentEvent[]): Answer {
    this.appendToConsent(no, decide(this.stateOf(no)));
    return { accepted: true };
  }

  private appendToConsent(no: ConsentNo, events: ConsentEvent[]): void {
    for (const event of events) {
      const entry = this.consents.get(no);
      this.consents.set(no, { state: evolveConsent(entry?.state ?? null, event, TENANT_ID)!, revision: (entry?.revision ?? -1) + 1 });
      this.project(event);
    }
  }

  private bindingsOf(obligation: Obligation): ObligationBindings {
    return this.obligationStreams.get(documentIdOf(obligation)) ?? { bindings: [], annulled: [] };
  }

  private appendToObligation(obligation: Obligation, event: ObligationEvent): void {
    this.obligationStreams.set(documentIdOf(obligation), evolveObligationBindings(this.bindingsOf(obligation), event));
    this.project(event);
  }

  /** The projection runner: every document the fact touches, folded with the real projection. */
  private project(event: ConsentEvent | ObligationEvent): void {
    this.position += 1;
    const recorded = {
      id: `e-${this.position}`,
      type: event.type,
      data: event.data,
      metadata: { tenantId: TENANT_ID, correlationId: 'model', recordedAt: 0, schemaVersion: 1 },
      streamId: 'model',
      revision: 0,
      position: this.position,
      created: 0,
      integrity: { hash: 'h', previousHash: null },
    } as RecordedEvent;
    for (const id of obligationsProjection.route(recorded)) this.documents.set(id, obligationsProjection.evolve(this.documents.get(id) ?? null, recorded));
  }
}

const documentIds = new Map<string, string>();

/** The obligation's read-model id; kept, since it is a hash and every step looks up the whole pool. */
function documentIdOf({ sourceSystem, obligationReference }: Obligation): string {
  const key = `${sourceSystem}/${obligationReference}`;
  let id = documentIds.get(key);
  if (id === undefined) documentIds.set(key, (id = obligationDocumentId(TENANT_ID, sourceSystem, obligationReference)));
  return id;
}

/** A grant as the grant decider records it (see consent-fixtures.ts), at the instant the test chose. */
export function grantOf(action: Extract<Action, { type: 'grant' }>, now: number): ConsentGranted {
  const id = consentIdOf(action.consent);
  return {
    type: 'ConsentGranted',
    data: {
      redecConsentId: id,
      consentActionId: `grant-${id}`,
      internalConsentCode: consentCodeOf(action.consent),
      interactionId: `int-${id}`,
      customerId: action.customerId,
      configurationId: 'cfg-1',
      templateKey: 'redec-credit-evaluation',
      configurationVersion: 1,
      consentTitle: 'Consulta REDEC',
      consentText: 'Autorizo la consulta.',
      regulatoryProfile: BASELINE_PROFILE.id,
      channel: 'digital',
      captureTiming: 'deferred_external',
      finalityCode: '2',
      mediumCode: '1',
      objectiveCodes: GRANTED_OBJECTIVES,
      scopes: [SCOPE],
      targets: ['Banco Ejemplo'],
      obligationSourceSystem: OBLIGATION_SOURCE_SYSTEM,
      grantedAt: action.grantedAt,
      recordedAt: now,
      initialAccessValidUntil: action.initialAccessValidUntil,
      sourceSystem: 'web',
      sourceReference: `cap-${id}`,
      representation: null,
      reportableObligation: null,
      evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: `auth-${id}` } },
      artifact: { origin: 'generated_pdf', status: 'pending', mediaType: 'application/pdf', contentSha256: null },
      grantRequestSha256: `sha-${id}`,
    },
  };
}
