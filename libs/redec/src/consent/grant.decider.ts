import { normalizeRut } from '@ledger/ledger';
import { FieldError, conflict, fieldRefused, validationError } from '@ledger/platform';
import {
  ArtifactOrigin,
  CaptureTiming,
  Channel,
  ConsentGranted,
  ConsentScope,
  EvidenceKind,
  GrantEvidence,
  GrantExecutive,
  GrantRepresentation,
  ReportableObligationSnapshot,
} from './consent.events';
import { checkOccurredAt } from './caller-instants';

/** What the grant needs of the interaction's Regulatory Profile. */
export interface GrantPolicy {
  profileId: string;
  /** How far back `occurredAt` may lie (baseline 7 calendar days; docs/reference/grants.md, "Timing rules"). */
  maxOccurredAtSkewMs: number;
  /** How far a call recording's instant may be from `occurredAt` (baseline 5 minutes; docs/reference/grants.md, "Timing rules"). */
  recordingToleranceMs: number;
  acceptsEvidence(channel: Channel, kind: EvidenceKind): boolean;
  /** The REDEC medium code, derived from the evidence; clients never send one. */
  mediumCodeFor(kind: EvidenceKind): string;
}

/** The published configuration version the interaction links to. */
export interface GrantableConfiguration {
  configurationId: string;
  templateKey: string;
  version: number;
  /** The title and text presented to the data subject, frozen with the version. */
  title: string;
  text: string;
  channel: Channel;
  captureTiming: CaptureTiming;
  redec: {
    finalityCode: string;
    objectiveCodes: string[];
    scopes: ConsentScope[];
    targets: string[];
    obligationSourceSystem: string;
    regulatoryProfile: string;
  } | null;
  /** Embedded configurations only; absent in interactions frozen before embed terms existed. */
  embed?: { allowedOrigins: string[] } | null;
}

/** The grant request after the HTTP layer validated its shape, protected the RUT and stored supplied bytes. */
export interface GrantRequest {
  occurredAt: number;
  sourceSystem: string;
  sourceReference: string;
  representation: GrantRepresentation | null;
  executive?: GrantExecutive | null;
  scopeIds?: string[];
  objectiveCodes?: string[];
  reportableObligation?: ReportableObligationSnapshot;
  evidence: GrantEvidence;
}

export interface GrantInput {
  request: GrantRequest;
  requestSha256: string;
  interaction: { interactionId: string; customerId: string };
  configuration: GrantableConfiguration;
  policy: GrantPolicy;
  /** The grant already recorded on this interaction, if any. */
  existing: ConsentGranted['data'] | null;
  ids: { redecConsentId: string; consentActionId: string; internalConsentCode: string };
  /**
   * How this grant was captured; it must be the configuration's. Embedded
   * capture is synchronous (docs/reference/grants.md, "Embedded capture"):
   * `occurredAt` is the service's receipt of the acceptance, and it is both
   * `grantedAt` and `recordedAt`.
   */
  capture: CaptureTiming;
  /** Receipt time: the service clock when the request arrived. */
  now: number;
  initialAccessValidUntil: (grantedAt: number) => number;
}

export type GrantDecision = { kind: 'granted'; event: ConsentGranted } | { kind: 'already_granted'; grant: ConsentGranted['data'] };

const ARTIFACT_ORIGIN: Record<EvidenceKind, ArtifactOrigin> = {
  electronic: 'generated_pdf',
  audio_recording: 'supplied',
  physical_document: 'supplied',
};

/** A second grant of an interaction: an identical request answers the first grant, a different one is refused. */
export function repeatedGrant(existing: ConsentGranted['data'], requestSha256: string): ConsentGranted['data'] {
  if (existing.grantRequestSha256 === requestSha256) return existing;
  throw conflict('redec_interaction_already_granted', 'This interaction was already granted with a different request.');
}

/** What the grant's rules read: the request, the configuration version and its profile, how it was captured, and the receipt. */
export type GrantCheck = Pick<GrantInput, 'request' | 'configuration' | 'policy' | 'capture' | 'now'>;

/**
 * The grant's rules, refusing with the first one broken: a REDEC configuration
 * captured as it says, the timing rules on `occurredAt`
 * (docs/reference/grants.md, "Timing rules"), the evidence the profile accepts
 * on the channel, and scopes and objectives within the configuration's. Answers
 * the REDEC terms and the scopes and objectives granted.
 */
export function checkGrant(input: GrantCheck): { redec: NonNullable<GrantableConfiguration['redec']>; scopes: ConsentScope[]; objectiveCodes: string[] } {
  const { request, configuration, policy, now } = input;
  const redec = configuration.redec;
  if (!redec) throw conflict('redec_configuration_required', 'The interaction links to a configuration without a REDEC block.');
  if (configuration.captureTiming !== input.capture) {
    throw input.capture === 'deferred_external'
      ? conflict('redec_capture_is_embedded', 'This configuration captures consent in the embedded flow, not through grant.')
      : conflict('configuration_not_embedded', 'This configuration captures consent outside the service, through grant.');
  }

  checkOccurredAt('occurredAt', request.occurredAt, now, { id: policy.profileId, maxOccurredAtSkewMs: policy.maxOccurredAtSkewMs });
  const evidence = request.evidence;
  if (!policy.acceptsEvidence(configuration.channel, evidence.kind)) {
    throw fieldRefused('evidence.kind', 'evidence_kind_not_accepted_for_channel', `The ${policy.profileId} profile does not accept this evidence on the ${configuration.channel} channel.`);
  }
  // RDC30 names the executive of a capture in person or by phone; a digital capture has none.
  if (request.executive && configuration.channel === 'digital') {
    throw fieldRefused('executive', 'executive_not_for_digital_channel', 'An executive is recorded only for consents captured in person or by phone.');
  }
  // A call recording must match occurredAt; a paper original's digitization date is never compared
  // (docs/reference/grants.md, "Timing rules").
  if (evidence.kind === 'audio_recording' && Math.abs(evidence.recordedAt - request.occurredAt) > policy.recordingToleranceMs) {
    throw fieldRefused('evidence.recordedAt', 'recording_outside_tolerance', 'The recording instant does not match occurredAt within the profile tolerance.');
  }
  // Not compared with occurredAt, but a digitization that has not happened yet is not a fact.
  if (evidence.kind === 'physical_document' && evidence.digitizedAt > now) {
    throw fieldRefused('evidence.digitizedAt', 'digitized_at_after_receipt', 'digitizedAt is later than the receipt of the grant.');
  }
  return {
    redec,
    scopes: subset('scopeIds', request.scopeIds, redec.scopes, (s) => s.scopeId),
    objectiveCodes: subset('objectiveCodes', request.objectiveCodes, redec.objectiveCodes, (o) => o),
  };
}

export function decideGrant(input: GrantInput): GrantDecision {
  const { request, configuration, policy, now } = input;
  if (input.existing) return { kind: 'already_granted', grant: repeatedGrant(input.existing, input.requestSha256) };
  const { redec, scopes, objectiveCodes } = checkGrant(input);
  const evidence = request.evidence;
  const grantedAt = request.occurredAt;
  const mediaType = evidence.kind === 'electronic' ? 'application/pdf' : evidence.mediaType;
  const held = evidence.kind === 'electronic' ? null : evidence.content;
  const artifact = {
    origin: held?.origin === 'external_reference' ? ('external_reference' as const) : ARTIFACT_ORIGIN[evidence.kind],
    // Supplied bytes are stored before the fact is recorded; a PDF is rendered afterwards.
    status: evidence.kind === 'electronic' ? ('pending' as const) : ('ready' as const),
    mediaType,
    contentSha256: held?.contentSha256 ?? null,
  };

  return {
    kind: 'granted',
    event: {
      type: 'ConsentGranted',
      data: {
        ...input.ids,
        interactionId: input.interaction.interactionId,
        customerId: input.interaction.customerId,
        configurationId: configuration.configurationId,
        templateKey: configuration.templateKey,
        configurationVersion: configuration.version,
        consentTitle: configuration.title,
        consentText: configuration.text,
        regulatoryProfile: policy.profileId,
        channel: configuration.channel,
        captureTiming: configuration.captureTiming,
        finalityCode: redec.finalityCode,
        mediumCode: policy.mediumCodeFor(evidence.kind),
        objectiveCodes,
        scopes,
        targets: redec.targets,
        obligationSourceSystem: redec.obligationSourceSystem,
        grantedAt,
        recordedAt: input.capture === 'embedded' ? grantedAt : now,
        initialAccessValidUntil: input.initialAccessValidUntil(grantedAt),
        sourceSystem: request.sourceSystem,
        sourceReference: request.sourceReference,
        representation: request.representation,
        ...(request.executive ? { executive: request.executive } : {}),
        reportableObligation: request.reportableObligation ?? null,
        evidence,
        artifact,
        grantRequestSha256: input.requestSha256,
      },
    },
  };
}

/** Optional, a non-empty subset of the configuration's; default all (docs/reference/grants.md, "The grant request"). */
function subset<T>(field: string, requested: string[] | undefined, allowed: T[], keyOf: (item: T) => string): T[] {
  if (requested === undefined) return allowed;
  const errors: FieldError[] = [];
  if (requested.length === 0) errors.push({ field, reason: 'required' });
  requested.forEach((key, index) => {
    if (!allowed.some((item) => keyOf(item) === key)) errors.push({ field: `${field}[${index}]`, reason: 'not_in_configuration' });
    else if (requested.indexOf(key) !== index) errors.push({ field: `${field}[${index}]`, reason: 'duplicate' });
  });
  if (errors.length > 0) throw validationError(`${field} must be a non-empty subset of the configuration's.`, { errors });
  return allowed.filter((item) => requested.includes(keyOf(item)));
}

/** A RUT shown without revealing it, for documents that print the representation: `**.***.678-5`. */
export function maskRut(normalizedRut: string): string {
  const [body, checkDigit] = normalizedRut.split('-');
  return `**.***.${body.slice(-3)}-${checkDigit}`;
}

/** A RUT as typed in the request field `field`, normalized; its check digit must be valid. */
export function normalizeRutField(identifierRutInput: string, field: string): string {
  const rut = normalizeRut(identifierRutInput);
  if (rut === null) throw validationError(`${field} is not a valid RUT.`, { errors: [{ field, reason: 'invalid_rut' }] });
  return rut;
}
