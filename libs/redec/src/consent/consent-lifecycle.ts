import { randomUUID } from 'node:crypto';
import { EventStore } from '@ledger/event-store';
import { CommandContext } from '@ledger/ledger';
import { ProfileCatalog } from '../profiles/profile-catalog';
import { ConsentChangeResult, changeConsent } from './change-consent';
import { ConsentEvent, RevocationRecorded } from './consent.events';
import { ConsentState, CreditExtension } from './consent.state';
import { EndExtensionRequest, RegisterExtensionRequest, RevokeRequest, decideEndExtension, decideRegisterExtension, decideRevoke } from './lifecycle.decider';
import { ConsentStatus, RevocationView, deriveStatus, revocationView } from './regulatory-representation';

type Context = CommandContext & { tenantId: string };

/** The revocation as recorded, and the consent's status once it is. */
export type RevocationAnswer = RevocationRecorded['data'] & { consentStatus: ConsentStatus };

export type CreditExtensionAnswer = CreditExtension & {
  redecConsentId: string;
  consentStatus: ConsentStatus;
  /** The revocation as it stands after this change: a correction shows here as `effective: false` with `correctedAt`. */
  revocation: RevocationView | null;
};

/** Spec 2.12: records the revocation of a consent, effective or kept without effect. */
export async function revokeConsent(
  deps: { store: EventStore; profiles: ProfileCatalog },
  redecConsentId: string,
  request: RevokeRequest,
  context: Context,
): Promise<ConsentChangeResult<RevocationAnswer>> {
  const consentActionId = randomUUID();
  return changeConsent(deps.store, redecConsentId, context, {
    decide: (consent) => decideRevoke(consent, consent && (deps.profiles.get(consent.grant.regulatoryProfile) ?? null), request, consentActionId, context.now),
    answer: (consent, recorded) => {
      const { data } = recorded.find((e): e is RevocationRecorded => e.type === 'RevocationRecorded')!;
      return { ...data, consentStatus: deriveStatus(consent, context.now).status };
    },
  });
}

/** Spec 2.10: registers a credit extension, correcting an accepted revocation when the credit predates it. */
export function registerCreditExtension(
  store: EventStore,
  redecConsentId: string,
  request: RegisterExtensionRequest,
  context: Context,
): Promise<ConsentChangeResult<CreditExtensionAnswer>> {
  const creditExtensionId = randomUUID();
  return changeConsent(store, redecConsentId, context, {
    decide: (consent) => decideRegisterExtension(consent, request, creditExtensionId, context.now),
    answer: (consent, recorded) => extensionAnswer(consent, extensionIdOf(recorded, 'CreditExtensionRegistered'), context.now),
  });
}

/** Spec 2.10: ends a credit extension, once. */
export function endCreditExtension(
  store: EventStore,
  redecConsentId: string,
  creditExtensionId: string,
  request: EndExtensionRequest,
  context: Context,
): Promise<ConsentChangeResult<CreditExtensionAnswer>> {
  return changeConsent(store, redecConsentId, context, {
    decide: (consent) => decideEndExtension(consent, creditExtensionId, request, context.now),
    answer: (consent, recorded) => extensionAnswer(consent, extensionIdOf(recorded, 'CreditExtensionEnded'), context.now),
  });
}

function extensionIdOf(recorded: ConsentEvent[], type: 'CreditExtensionRegistered' | 'CreditExtensionEnded'): string {
  const event = recorded.find((e) => e.type === type) as Extract<ConsentEvent, { type: typeof type }>;
  return event.data.creditExtensionId;
}

function extensionAnswer(consent: ConsentState, creditExtensionId: string, now: number): CreditExtensionAnswer {
  const extension = consent.creditExtensions.find((e) => e.creditExtensionId === creditExtensionId)!;
  return { ...extension, redecConsentId: consent.grant.redecConsentId, consentStatus: deriveStatus(consent, now).status, revocation: revocationView(consent.revocation) };
}
