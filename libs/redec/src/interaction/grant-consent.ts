import { createHash } from 'node:crypto';
import { EventStore, RecordedEvent } from '@ledger/event-store';
import { CommandContext, Decision, ValueProtection, loadAggregate, runCommand } from '@ledger/ledger';
import { protectRut } from '../consent/protected-rut';
import { conflict, notFound, timeOrderedId, validationError } from '@ledger/platform';
import { BankingCalendar, initialAccessValidUntil } from '../calendar';
import { CaptureTiming, ConsentGranted, EvidenceContent, GrantEvidence, GrantExecutive, GrantRepresentation } from '../consent/consent.events';
import { checkEvidenceMediaType } from '../consent/evidence-media-types';
import { GrantPolicy, GrantRequest, GrantableConfiguration, decideGrant, maskRut, normalizeRutField, repeatedGrant } from '../consent/grant.decider';
import { internalConsentCodeFor } from '../consent/internal-consent-code';
import { ProfileCatalog } from '../profiles/profile-catalog';
import { RegulatoryProfile, acceptsEvidence, mediumCodeFor } from '../profiles/regulatory-profile';
import { derivedUuid } from '../derived-id';
import { redecStreams } from '../streams';
import { Interaction, evolveInteraction } from './interaction.events';

export interface GrantDependencies {
  store: EventStore;
  protection: ValueProtection;
  profiles: ProfileCatalog;
  /** Where supplied evidence bytes are held (content-addressed), sealed under the customer's key. */
  blobs: { put(tenantId: string, bytes: Buffer, customerId?: string): Promise<{ contentSha256: string; size: number }> };
  calendar: BankingCalendar;
}

/** Evidence as sent: supplied bytes (decoded from base64 by the HTTP edge), or a resource held elsewhere with its hash. */
type SuppliedContent = { bytes?: Buffer; externalReference?: string; contentSha256?: string };
export type EvidenceInput =
  | { kind: 'electronic'; authentication: { method: string; reference: string } }
  | ({ kind: 'audio_recording'; recordedAt: number; mediaType: string } & SuppliedContent)
  | ({ kind: 'physical_document'; digitizedAt: number; mediaType: string } & SuppliedContent);

/** The grant body after its shape was validated (docs/reference/grants.md, "The grant request"). */
export interface GrantConsentRequest extends Omit<GrantRequest, 'representation' | 'executive' | 'evidence'> {
  representation?: Omit<GrantRepresentation, 'identifierRut' | 'identifierRutMasked'> & { identifierRutInput: string };
  /** The bank's executive who captured the consent in person or by phone. */
  executive?: { identifierRutInput: string };
  evidence: EvidenceInput;
}

export interface GrantConsentResult {
  grant: ConsentGranted['data'];
  /** The position of the grant fact when this call recorded it; null when it answered an earlier identical grant. */
  position: number | null;
}

const CODE_ATTEMPTS = 5;

/** One consent per interaction: its id is derived from the interaction's, so a retry after a crash finds the same stream. */
export function redecConsentIdFor(tenantId: string, interactionId: string): string {
  return derivedUuid('redec-consent', tenantId, interactionId);
}

export function grantPolicyOf(profile: RegulatoryProfile): GrantPolicy {
  return {
    profileId: profile.id,
    maxOccurredAtSkewMs: profile.maxOccurredAtSkewMs,
    recordingToleranceMs: profile.recordingToleranceMs,
    acceptsEvidence: (channel, kind) => acceptsEvidence(profile, channel, kind),
    mediumCodeFor: (kind) => mediumCodeFor(profile, kind),
  };
}

/** What a grant is recorded on: the data subject and the configuration version frozen for them (an interaction, or an item of a Multi-Consent decision). */
export type GrantSubject = Pick<Interaction, 'interactionId' | 'customerId' | 'configuration'>;

/** A REDEC configuration's Regulatory Profile; null for a general configuration, or a profile this deployment has not loaded. */
export function profileOf(profiles: ProfileCatalog, configuration: GrantableConfiguration | null): RegulatoryProfile | null {
  return (configuration?.redec && profiles.get(configuration.redec.regulatoryProfile)) || null;
}

/** The grant policy of a REDEC configuration's Regulatory Profile. */
export function grantPolicyFor(profiles: ProfileCatalog, configuration: GrantableConfiguration): GrantPolicy {
  // Configurations are only published with a loaded profile; a profile removed since is a deployment fault.
  const profile = profileOf(profiles, configuration);
  if (!profile) throw conflict('regulatory_profile_unavailable', `The configuration's Regulatory Profile is not loaded in this deployment.`);
  return grantPolicyOf(profile);
}

/** Records the grant of an interaction (docs/reference/grants.md, "The grant request"): see recordGrant. */
export async function grantConsent(
  deps: GrantDependencies,
  interactionId: string,
  request: GrantConsentRequest,
  requestSha256: string,
  context: CommandContext & { tenantId: string },
  capture: CaptureTiming = 'deferred_external',
): Promise<GrantConsentResult> {
  const { state: interaction } = await loadAggregate(deps.store, redecStreams.interaction(context.tenantId, interactionId), evolveInteraction);
  if (!interaction) throw notFound('consent interaction');
  const prepared = await prepareGrantRequest(deps, context.tenantId, interaction.customerId, request);
  return recordGrant(deps, interaction, prepared, requestSha256, { ...context, causationId: interactionId }, { capture, receivedAt: context.now });
}

/**
 * A grant request (or the part of one an item of a decision sends) as
 * recorded: the representative's RUT protected and supplied bytes stored,
 * both under the data subject's key (decision 0035); the bank executive's
 * RUT protected under the tenant's key (it is the bank's, not the subject's).
 */
export async function prepareGrantRequest<R extends Pick<GrantConsentRequest, 'representation' | 'executive' | 'evidence'>>(
  deps: Pick<GrantDependencies, 'protection' | 'blobs'>,
  tenantId: string,
  customerId: string,
  request: R,
): Promise<Omit<R, 'representation' | 'executive' | 'evidence'> & Pick<GrantRequest, 'representation' | 'executive' | 'evidence'>> {
  const { executive, ...rest } = request;
  return {
    ...(rest as Omit<R, 'representation' | 'executive' | 'evidence'>),
    representation: await protectRepresentation(deps.protection, tenantId, customerId, request.representation),
    ...(executive ? { executive: await protectExecutive(deps.protection, tenantId, executive.identifierRutInput) } : {}),
    evidence: await holdEvidence(deps.blobs, tenantId, request.evidence, customerId),
  };
}

/**
 * Checks a grant request exactly as prepareGrantRequest does, storing and
 * encrypting nothing: for a request that must be refused before the customer
 * it names is resolved (a Multi-Consent decision), and so before the
 * customer's key exists.
 */
export const checkOnlyPreparation: Pick<GrantDependencies, 'protection' | 'blobs'> = {
  protection: {
    hash: async () => '',
    encrypt: async () => '',
    protectForCustomer: async () => ({ hash: '', ciphertext: '' }),
    hashForCustomer: async () => '',
  },
  blobs: { put: async (_tenantId, bytes) => ({ contentSha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length }) },
};

/**
 * Records a REDEC grant on its subject. The decision is taken on the facts
 * first, so an invalid grant claims nothing; then the internal code is
 * claimed in the tenant (a collision draws again) and the grant is recorded
 * as the first fact of the consent's stream, each write through the one
 * command path, so of two concurrent grants of one subject one is recorded
 * and the other answered as a repeat of it. `receivedAt` is the receipt the
 * rules read: the request's, or for a grant derived from a recorded
 * decision, that decision's, however late it is completed.
 */
export async function recordGrant(
  deps: GrantDependencies,
  subject: GrantSubject,
  request: GrantRequest,
  requestSha256: string,
  context: CommandContext & { tenantId: string },
  options: { capture: CaptureTiming; receivedAt: number },
): Promise<GrantConsentResult> {
  const { store } = deps;
  const { tenantId } = context;
  const policy = grantPolicyFor(deps.profiles, subject.configuration);
  const redecConsentId = redecConsentIdFor(tenantId, subject.interactionId);
  const consentStream = redecStreams.consent(tenantId, redecConsentId);
  const codeOf = (attempt: number) => internalConsentCodeFor(tenantId, redecConsentId, attempt);

  // The first code's claim is read beside the consent, in the same round trip: it is what claiming that code reads.
  const [[earlier], firstClaim] = await Promise.all([
    store.readStream(consentStream, { maxCount: 1 }),
    store.readStream(redecStreams.internalConsentCode(tenantId, codeOf(0))),
  ]);
  if (earlier) return { grant: repeatedGrant(earlier.data as ConsentGranted['data'], requestSha256), position: null };

  const consentActionId = timeOrderedId(context.now);
  for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt += 1) {
    const decision = decideGrant({
      request,
      requestSha256,
      interaction: subject,
      configuration: subject.configuration,
      policy,
      existing: null,
      capture: options.capture,
      ids: { redecConsentId, consentActionId, internalConsentCode: codeOf(attempt) },
      now: options.receivedAt,
      initialAccessValidUntil: (grantedAt) => initialAccessValidUntil(grantedAt, deps.calendar),
    });
    if (decision.kind === 'already_granted') return { grant: decision.grant, position: null };
    const { data } = decision.event;
    if (!(await claimInternalConsentCode(store, tenantId, data.internalConsentCode, redecConsentId, context, attempt === 0 ? firstClaim : undefined))) continue;
    const { result, position } = await runCommand(
      store,
      context,
      async (reads): Promise<Decision<ConsentGranted['data']>> => {
        const [granted] = await reads.events(consentStream);
        // A concurrent grant of the same subject was recorded first: answer as to a repeat.
        if (granted) return { answer: repeatedGrant(granted.data as ConsentGranted['data'], requestSha256), position: null };
        return { record: { streamId: consentStream, facts: [{ ...decision.event, id: consentActionId }] }, answer: data };
      },
      // Found empty above, and an empty first page is the whole stream.
      { alreadyRead: new Map([[consentStream, []]]) },
    );
    return { grant: result, position };
  }
  throw conflict('internal_consent_code_unavailable', 'Could not draw an unused internalConsentCode; retry the grant.');
}

/**
 * Claims `code` for the consent in the tenant, through the one command path:
 * the claim is recorded only on a code no consent holds. A concurrent grant
 * of the same consent draws the same code (internalConsentCodeFor) and finds
 * the claim already its own; false only when another consent holds the code.
 * `claimRead`: the code's stream, when the caller read it just before.
 */
async function claimInternalConsentCode(
  store: EventStore,
  tenantId: string,
  code: string,
  redecConsentId: string,
  context: CommandContext,
  claimRead?: RecordedEvent[],
): Promise<boolean> {
  const stream = redecStreams.internalConsentCode(tenantId, code);
  const { result } = await runCommand(
    store,
    context,
    async (reads): Promise<Decision<boolean>> => {
      const [claim] = await reads.events(stream);
      if (claim) return { answer: (claim.data as { redecConsentId?: string }).redecConsentId === redecConsentId, position: null };
      return { record: { streamId: stream, facts: [{ type: 'InternalConsentCodeClaimed', data: { redecConsentId, claimedAt: context.now } }] }, answer: true };
    },
    { alreadyRead: claimRead && new Map([[stream, claimRead]]) },
  );
  return result;
}

/** The representative's RUT (docs/reference/grants.md, "Representation") is normalized, then kept only as a keyed hash and a ciphertext. */
async function protectRepresentation(
  protection: ValueProtection,
  tenantId: string,
  customerId: string,
  representation: GrantConsentRequest['representation'],
): Promise<GrantRepresentation | null> {
  if (!representation) return null;
  const { identifierRutInput, ...assertion } = representation;
  const rut = normalizeRutField(identifierRutInput, 'representation.identifierRutInput');
  return {
    ...assertion,
    identifierRut: await protection.protectForCustomer(tenantId, customerId, 'representative-rut', rut),
    identifierRutMasked: maskRut(rut),
  };
}

async function protectExecutive(protection: ValueProtection, tenantId: string, identifierRutInput: string): Promise<GrantExecutive> {
  return { identifierRut: await protectRut(protection, tenantId, 'executive-rut', normalizeRutField(identifierRutInput, 'executive.identifierRutInput')) };
}


/**
 * Supplied bytes are stored now in the tenant's blobs (content-addressed, so
 * a retry stores nothing new), when the data subject is named as its own blob
 * sealed under its key (decision 0048); a reference elsewhere is recorded
 * with its hash. Either only with a
 * media type of its kind, checked before anything is stored.
 */
export async function holdEvidence(blobs: GrantDependencies['blobs'], tenantId: string, evidence: EvidenceInput, customerId?: string): Promise<GrantEvidence> {
  if (evidence.kind === 'electronic') return evidence;
  checkEvidenceMediaType(evidence.kind, evidence.mediaType);
  const { bytes, externalReference, contentSha256, ...described } = evidence;
  let content: EvidenceContent;
  if (bytes !== undefined && externalReference === undefined) {
    const stored = await blobs.put(tenantId, bytes, customerId);
    if (contentSha256 !== undefined && contentSha256 !== stored.contentSha256) {
      throw validationError('evidence.contentSha256 does not match the supplied bytes.', { errors: [{ field: 'evidence.contentSha256', reason: 'content_sha256_mismatch' }] });
    }
    content = { origin: 'held', contentSha256: stored.contentSha256, size: stored.size };
  } else if (bytes === undefined && externalReference !== undefined && contentSha256 !== undefined) {
    content = { origin: 'external_reference', externalReference, contentSha256 };
  } else {
    throw validationError('Send either evidence.contentBase64, or evidence.externalReference with evidence.contentSha256.', {
      errors: [{ field: 'evidence', reason: 'content_or_external_reference_required' }],
    });
  }
  return { ...described, content } as GrantEvidence;
}
