/** A usage mistake on the command line: reported as a JSON error with exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command that cannot do what was asked, for a reason the operator can fix: a JSON error with this code and exit status 1. */
export class CommandError extends Error {
  override name = 'CommandError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
