import { DomainError } from '../errors';

/** The DomainError a rule throws, for specs that assert on its code, reason and field errors. */
export function refusalOf(decide: () => unknown): DomainError {
  try {
    decide();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal, but the rule accepted');
}
