import type { ReadModel } from '@ledger/projections';
import { ConsentState } from '../consent/consent.state';
import { ConsentDocument, CONSENTS_PROJECTION, consentDocumentId } from '../consent/consents.projection';
import { ObligationRef, bindingStands, extensionIneffectiveReason } from '../consent/enablement';
import { ConsentCode, consentCodeFor } from './consent-code';
import { ObligationBinding } from './obligation.events';
import { ObligationDocument, extensionBinding, readObligation } from './obligations.projection';

/** The consents an obligation's document names, as the read model holds them; null for one it does not hold. */
export type ConsentOf = (redecConsentId: string) => ConsentState | null;

/**
 * docs/reference/obligations.md, "The consent-code lookup", and decision 0054:
 * the bindings that answer an obligation's lookup. A binding of kind
 * `legacy_pre_redec` or `no_applicable_consent` stands as recorded; one to a
 * consent stands while the consent's facts, as they stand now, say it enabled
 * access for the obligation when it was granted (enablement.ts
 * `bindingStands`); a credit extension stands while it keeps the consent for
 * its obligation. The consent's facts decide, not the order they were reported
 * in: a revocation reported after the binding, back-dated before the obligation
 * was granted, takes the code away.
 */
export function bindingsInEffect(document: ObligationDocument, consentOf: ConsentOf): ObligationBinding[] {
  const obligation: ObligationRef = document;
  const explicit = document.bindings.filter((binding) => {
    if (binding.kind !== 'consent') return true;
    const consent = consentOf(binding.redecConsentId!);
    return consent !== null && bindingStands(consent, obligation, binding.obligationGrantedAt);
  });
  const extensions = document.creditExtensions.filter((e) => {
    const consent = consentOf(e.redecConsentId);
    const extension = consent?.creditExtensions.find((x) => x.creditExtensionId === e.creditExtensionId);
    return consent && extension && extensionIneffectiveReason(consent, extension) === null;
  });
  return [...explicit, ...extensions.map((e) => extensionBinding(document, e))];
}

/** The consent-code lookup of an obligation (docs/reference/obligations.md, "The consent-code lookup"): its bindings in effect, and nothing else. */
export function lookupOf(document: ObligationDocument | null, consentOf: ConsentOf): ConsentCode {
  return consentCodeFor(document ? bindingsInEffect(document, consentOf) : []);
}

/** The ids of the consents an obligation's document names: what its lookup reads besides the document. */
export function consentsNamedBy(document: ObligationDocument): string[] {
  const named = [...document.bindings.map((b) => b.redecConsentId), ...document.creditExtensions.map((e) => e.redecConsentId)];
  return [...new Set(named.filter((id): id is string => id !== null))];
}

/** Reads the consents an obligation's document names, each once. */
export async function readConsentsOf(readModel: ReadModel, tenantId: string, document: ObligationDocument): Promise<ConsentOf> {
  const ids = consentsNamedBy(document);
  const consents = await Promise.all(ids.map((id) => readModel.getDocument<ConsentDocument>(CONSENTS_PROJECTION, consentDocumentId(tenantId, id))));
  const byId = new Map(ids.map((id, i) => [id, consents[i]]));
  return (id) => byId.get(id) ?? null;
}

/** The lookup of one obligation of the tenant, from the read model: its document, then the consents it names. */
export async function readObligationLookup(readModel: ReadModel, tenantId: string, obligation: ObligationRef): Promise<ConsentCode> {
  const document = await readObligation(readModel, tenantId, obligation);
  if (!document) return consentCodeFor([]);
  return lookupOf(document, await readConsentsOf(readModel, tenantId, document));
}
