import { randomUUID } from 'node:crypto';
import { EventStore } from '@ledger/event-store';
import { CommandContext, loadAggregate } from '@ledger/ledger';
import { notFound } from '@ledger/platform';
import { ProfileCatalog } from '../profiles/profile-catalog';
import { RegulatoryProfile } from '../profiles/regulatory-profile';
import { redecStreams } from '../streams';
import { ConsentChangeResult, changeConsent } from './change-consent';
import { Annulment, ConsentEvent, RevocationRecorded } from './consent.events';
import { ConsentState, evolveConsent } from './consent.state';
import { ObligationRef } from './enablement';
import {
  AnnulRequest,
  EndExtensionRequest,
  ObligationElsewhere,
  RegisterExtensionRequest,
  RevokeRequest,
  decideAnnulExtension,
  decideAnnulExtensionEnd,
  decideEndExtension,
  decideRegisterExtension,
  decideRevoke,
} from './lifecycle.decider';
import { ConsentStatus, CreditExtensionView, RevocationView, creditExtensionView, deriveStatus, revocationView } from './regulatory-representation';

type Context = CommandContext & { tenantId: string };

/** The revocation as recorded, and the consent's status once it is. */
export type RevocationAnswer = RevocationRecorded['data'] & { consentStatus: ConsentStatus };

export type CreditExtensionAnswer = CreditExtensionView & {
  redecConsentId: string;
  consentStatus: ConsentStatus;
  /** The revocation as it stands after this change: a correction shows here as `effective: false` with `correctedAt`. */
  revocation: RevocationView | null;
};

/** An annulment as recorded, and the consent as it stands after it. */
export type CreditExtensionAnnulmentAnswer = Annulment & {
  redecConsentId: string;
  creditExtensionId: string;
  /** What was annulled: the registration (the extension is gone from the read) or its end (the extension is active again). */
  annulled: 'credit_extension' | 'credit_extension_end';
  consentStatus: ConsentStatus;
  revocation: RevocationView | null;
};

export interface LifecycleDependencies {
  store: EventStore;
  profiles: ProfileCatalog;
}

export interface RegisterExtensionDependencies extends LifecycleDependencies {
  /**
   * What the tenant's other consents say about an obligation, from a read
   * model that has caught up with every fact committed before the call.
   */
  obligationElsewhere(tenantId: string, obligation: ObligationRef): Promise<ObligationElsewhere>;
}

/** Records the revocation of a consent, effective or kept without effect (docs/reference/revocations.md). */
export async function revokeConsent(deps: LifecycleDependencies, redecConsentId: string, request: RevokeRequest, context: Context): Promise<ConsentChangeResult<RevocationAnswer>> {
  const consentActionId = randomUUID();
  return changeConsent(deps.store, redecConsentId, context, {
    decide: (consent) => decideRevoke(consent, profileOf(deps.profiles, consent), request, consentActionId, context.now),
    answer: (consent, recorded) => {
      const { data } = recorded.find((e): e is RevocationRecorded => e.type === 'RevocationRecorded')!;
      return { ...data, consentStatus: deriveStatus(consent, context.now).status };
    },
  });
}

/** Registers a credit extension, correcting an accepted revocation when the credit predates it (docs/reference/credit-extensions.md). */
export async function registerCreditExtension(
  deps: RegisterExtensionDependencies,
  redecConsentId: string,
  request: RegisterExtensionRequest,
  context: Context,
): Promise<ConsentChangeResult<CreditExtensionAnswer>> {
  // The obligation is the consent's obligation source system (frozen at grant) and the credit operation.
  const { state: granted } = await loadAggregate(deps.store, redecStreams.consent(context.tenantId, redecConsentId), (state: ConsentState | null, event: ConsentEvent) =>
    evolveConsent(state, event, context.tenantId),
  );
  if (!granted) throw notFound('consent');
  const elsewhere = await deps.obligationElsewhere(context.tenantId, { sourceSystem: granted.grant.obligationSourceSystem, obligationReference: request.creditOperationReference });
  const creditExtensionId = randomUUID();
  return changeConsent(deps.store, redecConsentId, context, {
    decide: (consent) => decideRegisterExtension(consent, elsewhere, request, creditExtensionId, context.now),
    answer: (consent, recorded) => extensionAnswer(consent, extensionIdOf(recorded), context.now),
  });
}

/** Ends a credit extension, once (docs/reference/credit-extensions.md, "Ending an extension"). */
export function endCreditExtension(
  deps: LifecycleDependencies,
  redecConsentId: string,
  creditExtensionId: string,
  request: EndExtensionRequest,
  context: Context,
): Promise<ConsentChangeResult<CreditExtensionAnswer>> {
  return changeConsent(deps.store, redecConsentId, context, {
    decide: (consent) => decideEndExtension(consent, profileOf(deps.profiles, consent), creditExtensionId, request, context.now),
    answer: (consent, recorded) => extensionAnswer(consent, extensionIdOf(recorded), context.now),
  });
}

/** Annuls a credit extension registered by mistake, or its end (`what`). */
export function annulCreditExtension(
  store: EventStore,
  redecConsentId: string,
  creditExtensionId: string,
  what: CreditExtensionAnnulmentAnswer['annulled'],
  request: AnnulRequest,
  context: Context,
): Promise<ConsentChangeResult<CreditExtensionAnnulmentAnswer>> {
  const decide = what === 'credit_extension' ? decideAnnulExtension : decideAnnulExtensionEnd;
  return changeConsent(store, redecConsentId, context, {
    decide: (consent) => decide(consent, creditExtensionId, request, context.now),
    answer: (consent, recorded) => {
      const annulment = recorded.find((e) => e.type === 'CreditExtensionAnnulled' || e.type === 'CreditExtensionEndAnnulled') as Extract<
        ConsentEvent,
        { type: 'CreditExtensionAnnulled' | 'CreditExtensionEndAnnulled' }
      >;
      const { reason, sourceReference, annulledAt } = annulment.data;
      return {
        redecConsentId,
        creditExtensionId,
        annulled: what,
        reason,
        sourceReference,
        annulledAt,
        consentStatus: deriveStatus(consent, context.now).status,
        revocation: revocationView(consent),
      };
    },
  });
}

/** The consent's Regulatory Profile; null when there is no consent, or this deployment no longer loads its profile. */
function profileOf(profiles: ProfileCatalog, consent: ConsentState | null): RegulatoryProfile | null {
  return (consent && profiles.get(consent.grant.regulatoryProfile)) ?? null;
}

function extensionIdOf(recorded: ConsentEvent[]): string {
  const event = recorded.find((e) => e.type === 'CreditExtensionRegistered' || e.type === 'CreditExtensionEnded') as Extract<
    ConsentEvent,
    { type: 'CreditExtensionRegistered' | 'CreditExtensionEnded' }
  >;
  return event.data.creditExtensionId;
}

function extensionAnswer(consent: ConsentState, creditExtensionId: string, now: number): CreditExtensionAnswer {
  const extension = creditExtensionView(consent, consent.creditExtensions.find((e) => e.creditExtensionId === creditExtensionId)!);
  return { ...extension, redecConsentId: consent.grant.redecConsentId, consentStatus: deriveStatus(consent, now).status, revocation: revocationView(consent) };
}
