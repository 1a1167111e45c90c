import type { EventStore } from '@ledger/event-store';
import { loadAggregate } from '@ledger/ledger';
import { redecStreams } from '../streams';
import { ConsentEvent } from './consent.events';
import { ConsentState, evolveConsent } from './consent.state';

/** A consent's state folded from its own stream in the ledger, without the read model; null when the tenant has no such consent. */
export async function loadConsent(store: EventStore, tenantId: string, redecConsentId: string): Promise<ConsentState | null> {
  const { state } = await loadAggregate(store, redecStreams.consent(tenantId, redecConsentId), (s: ConsentState | null, e: ConsentEvent) => evolveConsent(s, e, tenantId));
  return state;
}
