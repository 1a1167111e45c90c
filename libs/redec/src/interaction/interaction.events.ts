import type { GrantableConfiguration } from '../consent/grant.decider';

/**
 * An interaction (docs/reference/grants.md, "Opening an interaction") links the
 * data subject to a published configuration that includes REDEC. The
 * configuration version is frozen here, so a later version never changes what
 * this interaction's grant records.
 */
export interface InteractionCreated {
  type: 'InteractionCreated';
  data: { interactionId: string; customerId: string; configuration: GrantableConfiguration; createdAt: number };
}

export type InteractionEvent = InteractionCreated;

export interface Interaction {
  interactionId: string;
  customerId: string;
  configuration: GrantableConfiguration;
  createdAt: number;
}

export function evolveInteraction(_state: Interaction | null, event: InteractionEvent): Interaction {
  return { ...event.data };
}
