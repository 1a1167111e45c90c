import { ConsentState } from '../consent/consent.state';
import { AccessRequest, denyReasonAt } from './access.decider';
import { AccessDecided } from './access.events';

/**
 * What a consent's read-model document keeps of the authorized decisions
 * that named it, so that its later facts can say whether they contradict any
 * (decision 0056): per kind of access, the first and last `decidedAt`.
 */

/** The instants of a consent's authorized decisions of one kind: the first and the last, enough to see whether a later fact reaches any of them. */
export interface AuthorizationSpan {
  consentAuthorizationMode: AccessRequest['consentAuthorizationMode'];
  /** The obligation and objective, for `credit_lifecycle_extension`; what an `initial_window` decision named does not matter to it. */
  sourceSystem: string | null;
  obligationReference: string | null;
  objectiveCode: string | null;
  first: number;
  last: number;
}

/** Adds an authorized decision to the consent's spans. */
export function withAuthorization(spans: readonly AuthorizationSpan[], decision: AccessDecided['data']): AuthorizationSpan[] {
  const { request, decidedAt } = decision;
  const window = request.consentAuthorizationMode === 'initial_window';
  const key = {
    consentAuthorizationMode: request.consentAuthorizationMode,
    sourceSystem: window ? null : request.reportingObligation.sourceSystem,
    obligationReference: window ? null : request.reportingObligation.sourceReference,
    objectiveCode: window ? null : request.objectiveCode,
  };
  const same = (s: AuthorizationSpan) =>
    s.consentAuthorizationMode === key.consentAuthorizationMode && s.sourceSystem === key.sourceSystem && s.obligationReference === key.obligationReference && s.objectiveCode === key.objectiveCode;
  const span = spans.find(same);
  if (!span) return [...spans, { ...key, first: decidedAt, last: decidedAt }];
  return spans.map((s) => (s === span ? { ...s, first: Math.min(s.first, decidedAt), last: Math.max(s.last, decidedAt) } : s));
}

/**
 * Whether the consent's facts, as they stand, deny an access of a span at
 * either of its ends. Enablement is an interval (the window until
 * revokedAt; an extension from its credit until its end), so the ends say
 * whether any decision between them is contradicted.
 */
export function contradictsAuthorizations(consent: ConsentState, spans: readonly AuthorizationSpan[]): boolean {
  return spans.some((span) => [span.first, span.last].some((at) => denyReasonAt(consent, requestOfSpan(span), at) !== null));
}

function requestOfSpan(span: AuthorizationSpan): Pick<AccessRequest, 'consentAuthorizationMode' | 'reportingObligation' | 'objectiveCode'> {
  return {
    consentAuthorizationMode: span.consentAuthorizationMode,
    reportingObligation: { status: 'granted', sourceSystem: span.sourceSystem ?? '', sourceReference: span.obligationReference ?? '', assertedAt: span.first },
    objectiveCode: span.objectiveCode ?? '',
  };
}

/** Index of the consents some of whose authorized decisions their later facts contradict, by consent id. */
export const CONTRADICTED_AUTHORIZATIONS_INDEX = 'contradicted-authorizations';

