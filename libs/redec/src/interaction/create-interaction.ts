import { randomUUID } from 'node:crypto';
import { EventStore } from '@ledger/event-store';
import {
  CommandContext,
  CustomerIdentityDependencies,
  IdentifierInput,
  evolveCustomer,
  loadAggregate,
  normalizeIdentifiers,
  resolveCustomer,
  streams,
  toNewEvent,
} from '@ledger/ledger';
import { customerDataErased, notFound, refusingAs } from '@ledger/platform';
import type { GrantableConfiguration } from '../consent/grant.decider';
import { ProfileCatalog } from '../profiles/profile-catalog';
import { IdentifierForCheck } from '../profiles/regulatory-profile';
import { redecStreams } from '../streams';
import { profileOf } from './grant-consent';
import { InteractionPurpose, checkInteraction, decideCreateInteraction } from './interaction.decider';

export interface InteractionDependencies extends CustomerIdentityDependencies {
  profiles: ProfileCatalog;
  findConfiguration(tenantId: string, configurationId: string): Promise<GrantableConfiguration | null>;
}

/** The customer by id, or resolved inline with the rules of customer resolution (docs/reference/grants.md, "Opening an interaction"). */
export type CustomerReference = { customerId: string } | { userReference: string; identifiers: IdentifierInput[] };

/** The capture's data subject: the customer, and optionally their name as the bank chose to show it on the certificate (decision 0075). */
export interface CaptureSubject {
  customer: CustomerReference;
  dataSubjectName?: string | null;
}

export type CreateInteractionRequest = { configurationId: string; dataSubjectName?: string | null } & CustomerReference;

export interface ResolvedCustomer {
  customerId: string;
  /** Whether resolving the customer inline created it. */
  customerCreated: boolean;
  /** The last position this call appended (0: none), for read-your-writes. */
  position: number;
}

/**
 * The customer a request names, by id or resolved inline. `check` sees the
 * identifiers first (the request's, or the stored customer's, named by
 * `field`) and refuses by throwing, so a refused request records no customer
 * either. Answers what `check` answered.
 */
export async function customerOfRequest<T>(
  deps: CustomerIdentityDependencies,
  customer: CustomerReference,
  context: CommandContext & { tenantId: string },
  check: (identifiers: readonly IdentifierForCheck[], field: 'identifiers' | 'customerId') => T,
): Promise<ResolvedCustomer & { checked: T }> {
  if ('customerId' in customer) {
    const { state } = await loadAggregate(deps.store, streams.customer(context.tenantId, customer.customerId), evolveCustomer);
    if (!state) throw notFound('customer');
    // Nothing new is recorded for a customer whose data was erased: its key is gone, and a new consent would restart its retention.
    if (state.erasedAt !== null) throw customerDataErased();
    return { customerId: state.customerId, customerCreated: false, position: 0, checked: check(state.identifiers, 'customerId') };
  }
  const checked = check(normalizeIdentifiers(customer.identifiers, context.now), 'identifiers');
  const resolved = await resolveCustomer(deps, { userReference: customer.userReference, identifiers: customer.identifiers }, context);
  return { customerId: resolved.customerId, customerCreated: resolved.created, position: resolved.position ?? 0, checked };
}

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
  const { configurationId, dataSubjectName, ...customer } = request;
  const created = await createInteractions(deps, { customer, dataSubjectName, configurationIds: [configurationId] }, context, purpose);
  const [{ interactionId, configuration }] = created.interactions;
  return { interactionId, customerId: created.customerId, configurationId, configuration, customerCreated: created.customerCreated, position: created.position };
}

/**
 * Opens one interaction per configuration for one customer (an embed
 * session may offer several). Every configuration is checked for the
 * purpose and against the customer's identifiers before anything is
 * recorded; `configurationField` names the offending one in a refusal when
 * the request named several.
 */
export async function createInteractions(
  deps: InteractionDependencies,
  request: CaptureSubject & { configurationIds: string[] },
  context: CommandContext & { tenantId: string },
  purpose: InteractionPurpose,
  configurationField?: (index: number) => string,
): Promise<ResolvedCustomer & { interactions: Array<{ interactionId: string; configuration: GrantableConfiguration }> }> {
  const { tenantId } = context;
  const found = await Promise.all(request.configurationIds.map((id) => deps.findConfiguration(tenantId, id)));
  const subject = await customerOfRequest(deps, request.customer, context, (identifiers, field) =>
    found.map((configuration, index) => {
      const check = () => checkInteraction(configuration, profileOf(deps.profiles, configuration), identifiers, field, purpose);
      return configurationField ? refusingAs(configurationField(index), check) : check();
    }),
  );
  let position = subject.position;
  // Personal data: under the customer's own key, erased with it.
  const dataSubjectNameCiphertext = request.dataSubjectName
    ? (await deps.protection.protectForCustomer(tenantId, subject.customerId, 'data-subject-name', request.dataSubjectName)).ciphertext
    : null;
  const interactions: Array<{ interactionId: string; configuration: GrantableConfiguration }> = [];
  for (const configuration of subject.checked) {
    const interactionId = randomUUID();
    const events = decideCreateInteraction({ interactionId, customerId: subject.customerId, configuration, now: context.now, dataSubjectNameCiphertext });
    const appended = await deps.store.append(redecStreams.interaction(tenantId, interactionId), events.map((e) => toNewEvent(e, context)), 'no_stream');
    position = Math.max(position, appended.position);
    interactions.push({ interactionId, configuration });
  }
  return { customerId: subject.customerId, customerCreated: subject.customerCreated, position, interactions };
}
