import type { CertificateTerm, ConsentCertificateFacts } from '@ledger/artifacts';
import type { RecordedEvent } from '@ledger/event-store';
import { Tenant, TenantEvent, TermKind, evolveTenant, tenantDisplayName } from '@ledger/ledger';
import { ReadableTerms } from '../terms/readable-terms';
import { ConsentState } from './consent.state';

/** The bank as it presented itself when the consent was recorded: what its certificate prints, whenever it is rendered. */
export interface CertificateBank {
  displayName: string;
  terms: ReadableTerms;
}

/**
 * The bank as its facts stood before `position` (the grant's): a
 * certificate rendered again later (a retried job, a rebuilt blob) prints
 * what it printed first, whatever the bank has changed since. Until the bank
 * sets a presentation, its tenant's name.
 */
export function certificateBankAt(tenantFacts: readonly RecordedEvent[], position: number): CertificateBank {
  const tenant = tenantFacts.filter((fact) => fact.position < position).reduce<Tenant | null>((state, fact) => evolveTenant(state, fact as unknown as TenantEvent), null);
  return { displayName: tenantDisplayName(tenant), terms: new ReadableTerms(tenant?.settings.presentation?.terms) };
}

/** The consent certificate of an electronic grant, from the grant's facts and the bank's presentation at the grant only (same facts, same bytes). */
export function certificateFactsOf(grant: ConsentState['grant'], bank: CertificateBank, dataSubjectName: string | null = null): ConsentCertificateFacts {
  if (grant.evidence.kind !== 'electronic') throw new Error('only an electronic grant has a rendered certificate');
  const term = (kind: TermKind, code: string): CertificateTerm => ({ meaning: bank.terms.meaningOf(kind, code), code });
  const representation = grant.representation;
  return {
    bank: { displayName: bank.displayName },
    ...(dataSubjectName ? { dataSubjectName } : {}),
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
    channel: term('channel', grant.channel),
    captureTiming: grant.captureTiming,
    regulatoryProfile: grant.regulatoryProfile,
    finality: term('finality', grant.finalityCode),
    medium: term('medium', grant.mediumCode),
    objectives: grant.objectiveCodes.map((code) => term('objective', code)),
    scopes: grant.scopes.map((scope) => ({ scopeId: scope.scopeId, dataCategory: term('dataCategory', scope.dataCategoryCode) })),
    targets: grant.targets,
    authentication: { method: term('authenticationMethod', grant.evidence.authentication.method), reference: grant.evidence.authentication.reference },
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
