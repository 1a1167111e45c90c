/** A usage mistake on the command line: reported as a JSON error with exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
