import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { CODE_POINT } from '@ledger/http';
import { IsDefined, IsInt, IsNotEmpty, IsString, IsUUID, Matches, ValidationOptions, isUUID, MaxLength, Min, registerDecorator } from 'class-validator';

/** Required, non-empty text with a bound: the shape of every reference and code the API takes. `each` for every item of a list. */
export function Text(maxLength = 200, options: Pick<ValidationOptions, 'each'> = {}): PropertyDecorator {
  return applyDecorators(IsDefined(options), IsString(options), IsNotEmpty(options), MaxLength(maxLength, options));
}

/** A refused class of characters: the field reason, and a pattern matching one character of the class. */
type CharacterClass = readonly [reason: string, pattern: RegExp];

/**
 * C0 and C1 controls. An identity (a source system, a reference) is one line
 * of text, so none is accepted in it: composite ids join their parts with NUL
 * (docs/decisions/0065-identity-text.md), and a tab or line break in a
 * reference is never what a caller meant.
 */
const IDENTITY_CHARACTERS: readonly CharacterClass[] = [['control_character', /[\u0000-\u001F\u007F-\u009F]/]];

/**
 * Characters that make what a data subject reads differ from what is
 * recorded, each refused with its reason: C0 and C1 controls but tab and line
 * feed (a NUL ends a string in some renderers, others draw nothing), bidi
 * controls (U+202E shows `txt.exe` as `exe.txt`; the marks U+200E, U+200F and
 * U+061C reorder neutral characters around them), every other format
 * character (Unicode category Cf: zero-width spaces and joiners, the BOM, the
 * soft hyphen, interlinear annotation marks, the tag characters that spell
 * text no renderer draws) and the line and paragraph separators, and lone
 * surrogates, which are no character at all and which each renderer replaces
 * its own way. Nothing is stripped: what is stored is what is shown
 * (docs/decisions/0065-identity-text.md).
 */
const HIDDEN_CHARACTERS: readonly CharacterClass[] = [
  ['control_character', /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/],
  ['bidi_control', /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/],
  // Cf without the bidi controls above, so that each character has one reason; unassigned tag code points too.
  ['invisible_character', /(?![\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069])[\p{Cf}\u2028\u2029\u{E0000}-\u{E007F}]/u],
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

/**
 * Refuses, in a string (or each string of a list, with `each`), every class
 * of `classes`, the field error naming the class and the first refused
 * character's code point (libs/http's validation, `CODE_POINT`), never the value.
 */
function refusing(classes: readonly CharacterClass[], options: Pick<ValidationOptions, 'each'>): PropertyDecorator {
  return (target, propertyName) => {
    for (const [reason, pattern] of classes) {
      registerDecorator({
        name: reason,
        target: target.constructor,
        propertyName: String(propertyName),
        options: { ...options, context: { [CODE_POINT]: pattern } },
        validator: { validate: (value: unknown) => typeof value !== 'string' || !pattern.test(value), defaultMessage: () => `${String(propertyName)} contains a ${reason.replace('_', ' ')}` },
      });
    }
  };
}

/** What the OpenAPI description of every PresentedText field says of its characters. */
export const PRESENTED =
  'Shown to the data subject: C0 and C1 control characters other than tab and line feed, bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), ' +
  'other invisible and format characters (Unicode category Cf, among them zero-width characters, U+FEFF, U+00AD and the tag characters U+E0000-U+E007F, and U+2028, U+2029) and lone surrogates are refused ' +
  '(400, reason `control_character`, `bidi_control`, `invisible_character` or `lone_surrogate`, with the `codePoint` of the first one), never stripped, since they would make what is displayed differ from what is recorded.';

/** What the OpenAPI description of every IdentityText field says of its characters. */
export const IDENTITY = 'An identity: C0 and C1 control characters (tab and line feed too) are refused (400, reason `control_character`, with its `codePoint`).';

/**
 * Text shown to a data subject (the consent page) or printed on the consent
 * certificate: Text, without a character that hides or reorders what is
 * displayed. A refusal is 400 naming the field and the code point, its reason
 * one of `control_character`, `bidi_control`, `invisible_character`,
 * `lone_surrogate`. With `identity`, a field that is also an identity, whose
 * control characters are refused as IdentityText refuses them (tab and line feed too).
 */
export function PresentedText(maxLength = 200, options: Pick<ValidationOptions, 'each'> & { identity?: boolean } = {}): PropertyDecorator {
  const { identity, ...each } = options;
  // An identity shown to the data subject (a grant's sourceReference) takes no control character at all: IdentityText's rule in place of the presented one.
  const classes = identity ? [...IDENTITY_CHARACTERS, ...HIDDEN_CHARACTERS.filter(([reason]) => reason !== 'control_character')] : HIDDEN_CHARACTERS;
  return applyDecorators(Text(maxLength, each), refusing(classes, each));
}

/**
 * The characters of an identity (sourceSystem, sourceReference,
 * obligationReference, creditOperationReference, userReference): no control
 * character, so that parts joined with NUL stay apart
 * (docs/decisions/0065-identity-text.md). For a field whose other rules
 * differ from Text's (an optional one); a presented identity is
 * PresentedText with `identity`.
 */
export function IdentityCharacters(): PropertyDecorator {
  return refusing(IDENTITY_CHARACTERS, {});
}

/** Text naming an identity: required, bounded, without control characters. */
export function IdentityText(maxLength = 200): PropertyDecorator {
  return applyDecorators(Text(maxLength), IdentityCharacters());
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
