import type { ConsentCertificateFacts } from '@ledger/artifacts';
import { ConsentState } from './consent.state';

/** The consent certificate of an electronic grant, from the grant's facts only (same facts, same bytes). */
export function certificateFactsOf(grant: ConsentState['grant']): ConsentCertificateFacts {
  if (grant.evidence.kind !== 'electronic') throw new Error('only an electronic grant has a rendered certificate');
  const representation = grant.representation;
  return {
    redecConsentId: grant.redecConsentId,
    internalConsentCode: grant.internalConsentCode,
    consentActionId: grant.consentActionId,
    templateKey: grant.templateKey,
    configurationVersion: grant.configurationVersion,
    consentTitle: grant.consentTitle,
    consentText: grant.consentText,
    grantedAt: grant.grantedAt,
    recordedAt: grant.recordedAt,
    initialAccessValidUntil: grant.initialAccessValidUntil,
    channel: grant.channel,
    captureTiming: grant.captureTiming,
    regulatoryProfile: grant.regulatoryProfile,
    finalityCode: grant.finalityCode,
    mediumCode: grant.mediumCode,
    objectiveCodes: grant.objectiveCodes,
    scopes: grant.scopes,
    targets: grant.targets,
    authentication: grant.evidence.authentication,
    sourceSystem: grant.sourceSystem,
    sourceReference: grant.sourceReference,
    ...(representation && {
      representation: {
        type: representation.type,
        maskedIdentifier: representation.identifierRutMasked,
        authorityBasis: representation.authorityBasis,
        authorityReference: representation.authorityReference,
        assertedAt: representation.assertedAt,
      },
    }),
    ...(grant.reportableObligation && { reportableObligation: grant.reportableObligation }),
  };
}
