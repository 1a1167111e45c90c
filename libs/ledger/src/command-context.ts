import { EventMetadata, NewEvent, RecordedEvent } from '@ledger/event-store';
import { timeOrderedId } from '@ledger/platform';

/**
 * Who is acting, for whom and when: everything a command needs besides its
 * own data. The HTTP layer builds it from the request context and the clock,
 * the CLI from the operator's account; domain code never reads either itself.
 */
export interface CommandContext {
  tenantId?: string;
  /** The API key id, or `cli:<user>` for operator commands. */
  actor: string;
  correlationId: string;
  causationId?: string;
  idempotencyKey?: string;
  requestHash?: string;
  /** The service clock at receipt (epoch ms). */
  now: number;
}

export const SCHEMA_VERSION = 1;

export function eventMetadata(context: CommandContext): EventMetadata {
  const metadata: EventMetadata = {
    correlationId: context.correlationId,
    actor: context.actor,
    recordedAt: context.now,
    schemaVersion: SCHEMA_VERSION,
  };
  if (context.tenantId !== undefined) metadata.tenantId = context.tenantId;
  if (context.causationId !== undefined) metadata.causationId = context.causationId;
  if (context.idempotencyKey !== undefined) metadata.idempotencyKey = context.idempotencyKey;
  if (context.requestHash !== undefined) metadata.requestHash = context.requestHash;
  return metadata;
}

/**
 * A domain event (type + data) wrapped with an id and the command's metadata,
 * ready to append. Without an id fixed by the decision, the event's id is
 * made at the command's instant (time-ordered: decision 0082).
 */
export function toNewEvent<E extends { type: string; data: unknown }>(event: E, context: CommandContext, id: string = timeOrderedId(context.now)): NewEvent<E['data']> {
  return { id, type: event.type, data: event.data, metadata: eventMetadata(context) };
}

/**
 * The facts an earlier run of this same request recorded: same
 * Idempotency-Key, same request hash. A request whose facts were appended but
 * whose answer was lost (the process stopped before the idempotency record
 * was written) is answered from them instead of being decided again.
 */
export function factsOfSameRequest(recorded: RecordedEvent[], context: CommandContext): RecordedEvent[] {
  if (context.idempotencyKey === undefined) return [];
  return recorded.filter((e) => e.metadata.idempotencyKey === context.idempotencyKey && e.metadata.requestHash === context.requestHash);
}
