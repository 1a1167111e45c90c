/**
 * The one error type every library throws for an expected failure. It names
 * what went wrong in domain terms (`kind`, `code`); the HTTP edge maps it to
 * a status and a problem+json body once, so no library knows about HTTP.
 *
 * A `detail` is written by our code for the client: it must never contain a
 * submitted value (an identifier, a key, a secret).
 */
export type ErrorKind =
  | 'validation'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'unprocessable'
  | 'rate_limited'
  | 'unavailable';

/** One offending field: a full path such as `identifiers[0].verification.method` and a snake_case reason. */
export interface FieldError {
  field: string;
  reason: string;
  /** The refused character, as `U+XXXX`, when the reason is a class of characters (docs/reference/errors.md, "Validation reasons"). */
  codePoint?: string;
}

export interface DomainErrorOptions {
  /** The sub-reason of a VALIDATION_ERROR, e.g. `internal_consent_code_is_server_generated`. */
  reason?: string;
  errors?: FieldError[];
  /** For a refusal that passes with time (503, 429): how many seconds the client should wait before retrying, sent as `Retry-After`. */
  retryAfterSeconds?: number;
}

/** The platform's stable codes (docs/reference/errors.md, "Catalogue"); domain-specific codes are lower-case and live with their rules. */
export const ErrorCodes = {
  VALIDATION_ERROR: 'VALIDATION_ERROR',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  INSUFFICIENT_SCOPE: 'INSUFFICIENT_SCOPE',
  NOT_FOUND: 'NOT_FOUND',
  IDEMPOTENCY_KEY_REQUIRED: 'IDEMPOTENCY_KEY_REQUIRED',
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  IDEMPOTENCY_KEY_IN_PROGRESS: 'IDEMPOTENCY_KEY_IN_PROGRESS',
  CUSTOMER_IDENTITY_CONFLICT: 'CUSTOMER_IDENTITY_CONFLICT',
} as const;

export class DomainError extends Error {
  override name = 'DomainError';
  readonly reason?: string;
  readonly errors?: FieldError[];
  readonly retryAfterSeconds?: number;

  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    readonly detail: string,
    options: DomainErrorOptions = {},
  ) {
    super(detail);
    this.reason = options.reason;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function validationError(detail: string, options: DomainErrorOptions = {}): DomainError {
  return new DomainError('validation', ErrorCodes.VALIDATION_ERROR, detail, options);
}

/** A rule refused one field: a VALIDATION_ERROR whose top-level reason and field error both name the rule. */
export function fieldRefused(field: string, reason: string, detail: string): DomainError {
  return validationError(detail, { reason, errors: [{ field, reason }] });
}

export function unauthenticated(detail: string): DomainError {
  return new DomainError('unauthenticated', ErrorCodes.UNAUTHENTICATED, detail);
}

export function forbidden(code: string, detail: string): DomainError {
  return new DomainError('forbidden', code, detail);
}

/** `what` names the kind of thing, never the id asked for: "consent", "configuration". */
export function notFound(what: string): DomainError {
  return new DomainError('not_found', ErrorCodes.NOT_FOUND, `No such ${what}.`);
}

export function conflict(code: string, detail: string): DomainError {
  return new DomainError('conflict', code, detail);
}

/** What was there is removed for good (an erasure): no retry or other state brings it back. */
export function gone(code: string, detail: string): DomainError {
  return new DomainError('gone', code, detail);
}

export function unprocessable(code: string, detail: string): DomainError {
  return new DomainError('unprocessable', code, detail);
}

/** The caller has used up its requests for now; the HTTP edge says when to retry (`Retry-After`). */
export function rateLimited(detail: string): DomainError {
  return new DomainError('rate_limited', 'TOO_MANY_REQUESTS', detail);
}

export function unavailable(code: string, detail: string, options: Pick<DomainErrorOptions, 'retryAfterSeconds'> = {}): DomainError {
  return new DomainError('unavailable', code, detail, options);
}

/**
 * The same refusal, for one part of a larger request (an item of a
 * Multi-Consent decision): the detail says which part, each field error is
 * renamed by `fieldOf` (e.g. `evidence.kind` → `items[1].redec.evidence.kind`),
 * and a refusal that named no field names `unnamed` with its code as the
 * reason.
 */
export function refusalOfPart(
  error: DomainError,
  part: string,
  { unnamed = part, fieldOf = (field: string) => `${part}.${field}` }: { unnamed?: string; fieldOf?: (field: string) => string } = {},
): DomainError {
  const errors = error.errors?.length ? error.errors.map(({ field, reason }) => ({ field: fieldOf(field), reason })) : [{ field: unnamed, reason: error.reason ?? error.code }];
  return new DomainError(error.kind, error.code, `${part}: ${error.detail}`, { reason: error.reason, errors });
}

/** Runs `rule`; a refusal that names no field of its own (an unknown or unsuitable configuration) is answered as a refusal of `part`. */
export function refusingAs<T>(part: string, rule: () => T): T {
  try {
    return rule();
  } catch (error) {
    if (error instanceof DomainError && !error.errors?.length) throw refusalOfPart(error, part);
    throw error;
  }
}
