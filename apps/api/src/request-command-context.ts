import { CommandContext } from '@ledger/ledger';
import { Clock, requireContext } from '@ledger/platform';

/**
 * The command context of the request being handled: the tenant and actor
 * come from the API key only, the idempotency key and request hash from the
 * idempotency interceptor, the instant from the service clock at receipt.
 */
export function requestCommandContext(clock: Clock): CommandContext & { tenantId: string } {
  const context = requireContext();
  if (!context.principal) throw new Error('a command ran without an authenticated principal');
  return {
    tenantId: context.principal.tenantId,
    actor: context.principal.keyId,
    correlationId: context.correlationId,
    idempotencyKey: context.idempotency?.key,
    requestHash: context.idempotency?.requestHash,
    now: clock.now(),
  };
}
