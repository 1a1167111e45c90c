import type { GrantableConfiguration } from '../consent/grant.decider';

/**
 * An interaction (docs/reference/grants.md, "Opening an interaction") links the
 * data subject to a published configuration that includes REDEC. The
 * configuration version is frozen here, so a later version never changes what
 * this interaction's grant records.
 */
export interface InteractionCreated {
  type: 'InteractionCreated';
  data: {
    interactionId: string;
    customerId: string;
    configuration: GrantableConfiguration;
    createdAt: number;
    /** The data subject's name as the bank chose to show it on the consent certificate, under the customer's key; absent or null when the bank sent none. */
    dataSubjectNameCiphertext?: string | null;
  };
}

export type InteractionEvent = InteractionCreated;

export interface Interaction {
  interactionId: string;
  customerId: string;
  configuration: GrantableConfiguration;
  createdAt: number;
  dataSubjectNameCiphertext?: string | null;
}

export function evolveInteraction(_state: Interaction | null, event: InteractionEvent): Interaction {
  return { ...event.data };
}
