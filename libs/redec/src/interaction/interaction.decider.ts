import { conflict, notFound, validationError } from '@ledger/platform';
import type { GrantableConfiguration } from '../consent/grant.decider';
import { IdentifierForCheck, RegulatoryProfile, checkIdentifiersForChannel } from '../profiles/regulatory-profile';
import { InteractionEvent } from './interaction.events';

/**
 * What an interaction captures: a REDEC consent granted later
 * (`/v1/redec/consent-interactions`), a general consent granted later
 * (`/v1/consent-interactions`), or either kind on the service's own consent
 * page (an embed session), which needs an `embedded` configuration.
 */
export type InteractionPurpose = 'redec' | 'general' | 'embedded';

/**
 * Checks, before anything is recorded, that an interaction may be opened:
 * the configuration exists in the tenant and suits the purpose, and for
 * REDEC the customer's identifiers and their provenance satisfy the
 * channel's profile. `identifiersField` says where the identifiers came from
 * (the request's `identifiers`, or the stored customer named by `customerId`).
 */
export function checkInteraction(
  configuration: GrantableConfiguration | null,
  profile: RegulatoryProfile | null,
  identifiers: readonly IdentifierForCheck[],
  identifiersField: 'identifiers' | 'customerId',
  purpose: InteractionPurpose,
): GrantableConfiguration {
  if (!configuration) throw notFound('configuration');
  if (purpose === 'redec' && !configuration.redec) {
    throw conflict('redec_configuration_required', 'A consent interaction needs a published configuration that includes REDEC.');
  }
  if (purpose === 'general' && configuration.redec) {
    throw conflict('general_configuration_required', 'This configuration includes REDEC: open its interactions with POST /v1/redec/consent-interactions.');
  }
  if (purpose === 'embedded' && configuration.captureTiming !== 'embedded') {
    throw conflict('configuration_not_embedded', 'An embed session needs a configuration published with captureTiming embedded.');
  }
  if (!configuration.redec) return configuration;
  // A configuration is only published with a known profile; a profile removed from the catalog since is a deployment fault.
  if (!profile) throw conflict('regulatory_profile_unavailable', `The configuration's Regulatory Profile is not loaded in this deployment.`);
  const errors = checkIdentifiersForChannel(profile, configuration.channel, identifiers, identifiersField);
  if (errors.length > 0) {
    throw validationError(`The identifiers do not satisfy the ${profile.id} profile for the ${configuration.channel} channel.`, {
      reason: 'identifiers_do_not_satisfy_profile',
      errors,
    });
  }
  return configuration;
}

export function decideCreateInteraction(input: {
  interactionId: string;
  customerId: string;
  configuration: GrantableConfiguration;
  now: number;
  dataSubjectNameCiphertext?: string | null;
}): InteractionEvent[] {
  const { interactionId, customerId, configuration, now, dataSubjectNameCiphertext = null } = input;
  return [{ type: 'InteractionCreated', data: { interactionId, customerId, configuration, createdAt: now, dataSubjectNameCiphertext } }];
}
