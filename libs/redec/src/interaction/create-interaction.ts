import { randomUUID } from 'node:crypto';
import { EventStore } from '@ledger/event-store';
import {
  CommandContext,
  IdentifierInput,
  ValueProtection,
  evolveCustomer,
  loadAggregate,
  normalizeIdentifiers,
  resolveCustomer,
  streams,
  toNewEvent,
} from '@ledger/ledger';
import { notFound } from '@ledger/platform';
import type { GrantableConfiguration } from '../consent/grant.decider';
import { ProfileCatalog } from '../profiles/profile-catalog';
import { IdentifierForCheck } from '../profiles/regulatory-profile';
import { redecStreams } from '../streams';
import { InteractionPurpose, checkInteraction, decideCreateInteraction } from './interaction.decider';

export interface InteractionDependencies {
  store: EventStore;
  protection: ValueProtection;
  profiles: ProfileCatalog;
  findConfiguration(tenantId: string, configurationId: string): Promise<GrantableConfiguration | null>;
}

/** Spec 2.2: the customer by id, or resolved inline with the rules of customer resolution. */
export type CreateInteractionRequest =
  | { configurationId: string; customerId: string }
  | { configurationId: string; userReference: string; identifiers: IdentifierInput[] };

export interface CreateInteractionResult {
  interactionId: string;
  customerId: string;
  configurationId: string;
  /** Whether resolving the customer inline created it. */
  customerCreated: boolean;
  /** The last position this call appended, for read-your-writes. */
  position: number;
}

export async function createInteraction(
  deps: InteractionDependencies,
  request: CreateInteractionRequest,
  context: CommandContext & { tenantId: string },
  purpose: InteractionPurpose,
): Promise<CreateInteractionResult & { configuration: GrantableConfiguration }> {
  const { store } = deps;
  const { tenantId } = context;
  const found = await deps.findConfiguration(tenantId, request.configurationId);
  const profile = (found?.redec && deps.profiles.get(found.redec.regulatoryProfile)) || null;

  let configuration: GrantableConfiguration;
  let customerId: string;
  let customerCreated = false;
  let position = 0;
  if ('customerId' in request) {
    const { state: customer } = await loadAggregate(store, streams.customer(tenantId, request.customerId), evolveCustomer);
    if (!customer) throw notFound('customer');
    configuration = checkInteraction(found, profile, customer.identifiers, 'customerId', purpose);
    customerId = customer.customerId;
  } else {
    // Checked against the profile before resolving, so a refused interaction records no customer either.
    const identifiers: IdentifierForCheck[] = normalizeIdentifiers(request.identifiers, context.now);
    configuration = checkInteraction(found, profile, identifiers, 'identifiers', purpose);
    const resolved = await resolveCustomer(store, deps.protection, { userReference: request.userReference, identifiers: request.identifiers }, context);
    customerId = resolved.customerId;
    customerCreated = resolved.created;
    position = resolved.position ?? 0;
  }

  const interactionId = randomUUID();
  const events = decideCreateInteraction({ interactionId, customerId, configuration, now: context.now });
  const appended = await store.append(redecStreams.interaction(tenantId, interactionId), events.map((e) => toNewEvent(e, context)), 'no_stream');
  return { interactionId, customerId, configurationId: request.configurationId, configuration, customerCreated, position: Math.max(position, appended.position) };
}
