import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsDefined, IsInt, IsNotEmpty, IsString, IsUUID, Matches, ValidationOptions, isUUID, MaxLength, Min, registerDecorator } from 'class-validator';

/** Required, non-empty text with a bound: the shape of every reference and code the API takes. `each` for every item of a list. */
export function Text(maxLength = 200, options: Pick<ValidationOptions, 'each'> = {}): PropertyDecorator {
  return applyDecorators(IsDefined(options), IsString(options), IsNotEmpty(options), MaxLength(maxLength, options));
}

/**
 * Characters that make what a data subject reads differ from what is
 * recorded, each refused with its reason: C0 and C1 controls but tab and line
 * feed (a NUL ends a string in some renderers, others draw nothing), bidi
 * overrides and isolates (U+202E shows `txt.exe` as `exe.txt`), and lone
 * surrogates, which are no character at all and which each renderer replaces
 * its own way.
 */
const HIDDEN_CHARACTERS: ReadonlyArray<[reason: string, pattern: RegExp]> = [
  ['control_character', /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/],
  ['bidi_control', /[\u202A-\u202E\u2066-\u2069]/],
  // With the u flag a surrogate class matches only a surrogate that is not half of a pair.
  ['lone_surrogate', /[\uD800-\uDFFF]/u],
];

/** A URI scheme (RFC 3986): letters, digits, `+`, `.` and `-` after a letter, then a colon. */
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** What the OpenAPI description of every LocationText field says of its form. */
export const LOCATION =
  'An `https:` URL, or an opaque reference without a scheme (`calls/2026/0042`); any other scheme (`javascript:`, `data:`, `file:`, `http:`) is refused ' +
  '(400, reason `must_be_https_or_opaque`): whoever reads it back may open it.';

/**
 * Text that says where something is held, handed back to whoever reads the
 * record and likely opened by a browser or a tool: an `https:` URL or an
 * opaque reference without a scheme, never `javascript:`, `data:` or
 * another scheme that runs, reads local files or goes in clear. A refusal is
 * 400 naming the field, reason `must_be_https_or_opaque`.
 */
export function LocationText(maxLength = 200): PropertyDecorator {
  const located: PropertyDecorator = (target, propertyName) =>
    registerDecorator({
      name: 'mustBeHttpsOrOpaque',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !URI_SCHEME.test(value) || /^https:\/\/[^/?#\s]/i.test(value),
        defaultMessage: () => `${String(propertyName)} must be an https URL or a reference without a scheme`,
      },
    });
  return applyDecorators(Text(maxLength), located);
}

/** What the OpenAPI description of every PresentedText field says of its characters. */
export const PRESENTED =
  'Shown to the data subject: C0 and C1 control characters other than tab and line feed, bidi overrides and isolates (U+202A-U+202E, U+2066-U+2069) and lone surrogates are refused ' +
  '(400, reason `control_character`, `bidi_control` or `lone_surrogate`), since they would make what is displayed differ from what is recorded.';

/**
 * Text shown to a data subject (the consent page) or printed on the consent
 * certificate: Text, without a character that hides or reorders what is
 * displayed. A refusal is 400 naming the field, its reason one of
 * `control_character`, `bidi_control`, `lone_surrogate`.
 */
export function PresentedText(maxLength = 200, options: Pick<ValidationOptions, 'each'> = {}): PropertyDecorator {
  const presentable: PropertyDecorator = (target, propertyName) => {
    for (const [reason, pattern] of HIDDEN_CHARACTERS) {
      registerDecorator({
        name: reason,
        target: target.constructor,
        propertyName: String(propertyName),
        options,
        validator: { validate: (value: unknown) => typeof value !== 'string' || !pattern.test(value), defaultMessage: () => `${String(propertyName)} contains a ${reason.replace('_', ' ')}` },
      });
    }
  };
  return applyDecorators(Text(maxLength, options), presentable);
}

/** An instant in epoch milliseconds, as every instant of the interface (docs/reference/conventions.md, "Instants"). */
export function EpochMs(): PropertyDecorator {
  return applyDecorators(IsDefined(), IsInt(), Min(0));
}

/** Lower-case hex SHA-256, the form of every content hash. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;
export function Sha256Hex(): PropertyDecorator {
  return applyDecorators(IsDefined(), IsString(), Matches(SHA256_HEX));
}

/** Ids the service issues are lower-case UUIDs; a UUID sent in capitals (alone or in a list) names the same resource, as ResourceIdPipe does for path ids. */
export function UuidInLowerCase(): PropertyDecorator {
  const lower = (value: unknown) => (typeof value === 'string' && isUUID(value) ? value.toLowerCase() : value);
  return Transform(({ value }) => (Array.isArray(value) ? value.map(lower) : lower(value)));
}

/** An id the service issued, sent in a body: a UUID, taken in lower case. */
export function IssuedId(): PropertyDecorator {
  return applyDecorators(UuidInLowerCase(), IsUUID());
}

/**
 * A query-string integer: up to `maxDigits` digits (9 by default: limits and
 * counts) become a number; anything else stays text and fails `must_be_integer`.
 */
export function QueryInteger(maxDigits = 9): PropertyDecorator {
  const digits = new RegExp(`^\\d{1,${maxDigits}}$`);
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' && digits.test(value) ? Number(value) : value));
}
