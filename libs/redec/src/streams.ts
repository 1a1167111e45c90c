import { sha256Hex } from '@ledger/platform';
import { obligationKey } from './obligation/obligation-key';

/** REDEC stream names; like every tenant stream, each carries the tenant. */
export const redecStreams = {
  /**
   * One stream per template of a tenant, so that its versions are numbered by
   * appending at the exact expected revision. The key is hashed: it is the
   * integrator's free text and stream names stay short and plain.
   */
  configurationTemplate: (tenantId: string, templateKey: string) => `${redecStreams.configurationTemplates(tenantId)}${sha256Hex(templateKey)}`,
  /** The prefix of every configuration template stream of the tenant, for listing them (EventStore.streamIds). */
  configurationTemplates: (tenantId: string) => `configuration-template-${tenantId}-`,
  interaction: (tenantId: string, interactionId: string) => `redec-interaction-${tenantId}-${interactionId}`,
  consent: (tenantId: string, redecConsentId: string) => `redec-consent-${tenantId}-${redecConsentId}`,
  /** One stream per access request: its decision, then its confirmation. */
  access: (tenantId: string, redecAccessId: string) => `redec-access-${tenantId}-${redecAccessId}`,
  /** One stream per regulatory report: its request, then its rendering or failure. */
  report: (tenantId: string, reportId: string) => `redec-report-${tenantId}-${reportId}`,
  /** One stream per data subject's rights request (decision 0067): its receipt, then each step of its life. */
  rightsRequest: (tenantId: string, rightsRequestId: string) => `rights-request-${tenantId}-${rightsRequestId}`,
  /**
   * One stream per data subject of the resolutions and liftings of their
   * blocking requests (decision 0068): every block authorize must weigh for
   * the subject, in one stream it can name from the consent.
   */
  processingBlocks: (tenantId: string, customerId: string) => `processing-blocks-${tenantId}-${customerId}`,
  /** Uniqueness of an internalConsentCode in the tenant, claimed with `no_stream`. */
  internalConsentCode: (tenantId: string, code: string) => `reservation-${tenantId}-internal-consent-code-${code}`,
  /** One stream per reportable obligation (docs/reference/obligations.md), so its bindings are decided on all of them, at the revision read. */
  obligation: (tenantId: string, sourceSystem: string, obligationReference: string) =>
    `redec-obligation-${tenantId}-${obligationKey(sourceSystem, obligationReference)}`,
};
