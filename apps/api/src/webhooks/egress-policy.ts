import type { LedgerConfig } from '@ledger/platform';
import type { EgressPolicy } from '@ledger/webhooks';

/** Where webhooks may go, from the settings: one policy for registration and delivery (docs/webhooks.md, "Register an endpoint"). */
export function egressPolicyOf(config: LedgerConfig): EgressPolicy {
  return { allowPrivateNetworks: config.webhookAllowPrivateNetworks, allowedPorts: config.webhookAllowedPorts };
}
