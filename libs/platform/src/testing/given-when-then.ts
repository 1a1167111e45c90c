import { DomainError } from '../errors';

/**
 * Specifications of deciders as the rules are written: given these past
 * facts, when this command is decided, then these facts are recorded, or
 * this refusal. The state is folded from the facts with the aggregate's own
 * evolve, so a specification never builds a state by hand.
 *
 *     given(granted, revoked).when((consent) => decideRevoke(consent, ...)).thenRefused('redec_consent_already_revoked');
 */
export interface Decider<S, E> {
  evolve(state: S | null, event: E): S | null;
}

export interface When<S, E> {
  /** The facts the command records, in order. */
  then(expected: readonly E[]): void;
  /** The command records facts that match these (jest's toMatchObject, one per fact). */
  thenMatches(expected: ReadonlyArray<Partial<E> | Record<string, unknown>>): void;
  /** The command is refused with this code (and, for a VALIDATION_ERROR, this reason). */
  thenRefused(code: string, reason?: string): DomainError;
  /** The facts the command records, to assert on what `then` cannot say. */
  readonly recorded: E[];
  /** The state after the given facts and the recorded ones. */
  readonly after: S | null;
}

export interface Given<S, E> {
  /** The state the given facts fold to. */
  readonly state: S | null;
  when(decide: (state: S | null) => E[]): When<S, E>;
}

/** Binds a decider's evolve, so that its specifications read `given(...facts).when(...).then(...)`. */
export function specify<S, E>(decider: Decider<S, E>): (...facts: E[]) => Given<S, E> {
  const fold = (from: S | null, facts: readonly E[]) => facts.reduce<S | null>((state, fact) => decider.evolve(state, fact), from);
  return (...facts) => {
    const state = fold(null, facts);
    return {
      state,
      when(decide) {
        const attempt = () => decide(state);
        return {
          then: (expected) => expect(attempt()).toEqual(expected),
          thenMatches: (expected) => {
            const recorded = attempt();
            expect(recorded).toHaveLength(expected.length);
            expected.forEach((fact, i) => expect(recorded[i]).toMatchObject(fact));
          },
          thenRefused: (code, reason) => {
            let refusal: unknown;
            try {
              attempt();
            } catch (error) {
              refusal = error;
            }
            if (!(refusal instanceof DomainError)) throw refusal ?? new Error(`expected the refusal ${code}, but the command was accepted`);
            expect(refusal.code).toBe(code);
            if (reason !== undefined) expect(refusal.reason).toBe(reason);
            return refusal;
          },
          get recorded() {
            return attempt();
          },
          get after() {
            return fold(state, attempt());
          },
        };
      },
    };
  };
}
