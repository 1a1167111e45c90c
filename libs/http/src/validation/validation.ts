import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { ValidationOptions, ValidatorOptions, getMetadataStorage, registerDecorator } from 'class-validator';
import { DomainError, ErrorCodes, FieldError, validationError } from '@ledger/platform';
import { createValidityCheck } from './validity-check';

/**
 * Reasons for class-validator constraints whose name alone reads poorly; any
 * other constraint becomes its name in snake_case (`isUUID` → `is_uuid`,
 * a custom `internalConsentCodeIsServerGenerated` → its snake_case form).
 */
const REASON_BY_CONSTRAINT: Record<string, string> = {
  whitelistValidation: 'unknown_property',
  isDefined: 'required',
  isString: 'must_be_string',
  isInt: 'must_be_integer',
  isNumber: 'must_be_number',
  isBoolean: 'must_be_boolean',
  isArray: 'must_be_array',
  isObject: 'must_be_object',
  nestedValidation: 'must_be_object',
  isIn: 'invalid_value',
  isEnum: 'invalid_value',
  equals: 'invalid_value',
  isNotEmpty: 'must_not_be_empty',
  arrayNotEmpty: 'must_not_be_empty',
  arrayMinSize: 'too_few_items',
  arrayMaxSize: 'too_many_items',
  minLength: 'too_short',
  maxLength: 'too_long',
  length: 'invalid_length',
  min: 'too_small',
  max: 'too_large',
  matches: 'invalid_format',
};

/** A type mismatch explains the other failures of the same field, so it is the one reported. */
const TYPE_CONSTRAINTS = ['isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject', 'nestedValidation'];

/**
 * Flattens class-validator's tree into one `{ field, reason }` per offending
 * field, with full paths (`identifiers[0].verification.method`). Reasons come
 * from constraint names and the absence of a value, never from the value or
 * the constraint's message (which may quote the value).
 */
export function toFieldErrors(errors: ValidationError[], parentPath = ''): FieldError[] {
  return errors.flatMap((error) => {
    const path = joinPath(parentPath, error.property);
    const own = error.constraints ? [fieldErrorOf(error, path)] : [];
    return [...own, ...toFieldErrors(error.children ?? [], path)];
  });
}

function joinPath(parent: string, property: string): string {
  if (/^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent === '' ? property : `${parent}.${property}`;
}

/**
 * The key, in a constraint's context, of the pattern of a refused class of
 * characters: the field error then names the first such character as
 * `codePoint` (`U+E0041`), which tells the client what to remove without the
 * problem quoting the value.
 */
export const CODE_POINT = 'codePoint';

function fieldErrorOf(error: ValidationError, field: string): FieldError {
  const names = Object.keys(error.constraints ?? {});
  if (names.includes('whitelistValidation')) return { field, reason: REASON_BY_CONSTRAINT.whitelistValidation };
  if (error.value === undefined) return { field, reason: 'required' };
  const name = names.find((n) => TYPE_CONSTRAINTS.includes(n)) ?? names[0];
  const reason = REASON_BY_CONSTRAINT[name] ?? name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z])([A-Z][a-z])/g, '$1_$2').toLowerCase();
  const pattern = (error.contexts?.[name] as Record<string, unknown> | undefined)?.[CODE_POINT];
  const codePoint = pattern instanceof RegExp ? firstCodePoint(error.value, pattern) : undefined;
  return codePoint === undefined ? { field, reason } : { field, reason, codePoint };
}

/** The first character `pattern` matches in a string, or in a list's strings (an `each` rule), as `U+XXXX`. */
function firstCodePoint(value: unknown, pattern: RegExp): string | undefined {
  for (const item of Array.isArray(value) ? value : [value]) {
    const match = typeof item === 'string' ? pattern.exec(item) : null;
    if (match) return `U+${match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return undefined;
}

/** Marks a constraint whose failure names the whole request's problem (the problem's top-level `reason`). */
const REQUEST_REASON = { requestReason: true };

/**
 * A property the client must not send, e.g. a value the service generates (a
 * grant's `internalConsentCode`: docs/reference/grants.md, "The grant
 * request"). Sending it is a VALIDATION_ERROR whose top-level `reason` and
 * field reason are `reason`.
 */
export function MustNotBeSent(reason: string, options: ValidationOptions = {}): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: reason,
      target: target.constructor,
      propertyName: String(propertyName),
      options: { ...options, context: REQUEST_REASON },
      // class-validator attaches a constraint's context only when the constraint has a message.
      validator: { validate: (value: unknown) => value === undefined, defaultMessage: () => `${String(propertyName)} must not be sent` },
    });
}

function requestReasonOf(errors: ValidationError[]): string | undefined {
  for (const error of errors) {
    const marked = Object.entries(error.contexts ?? {}).find(([, context]) => (context as typeof REQUEST_REASON).requestReason);
    if (marked) return marked[0];
    const nested = requestReasonOf(error.children ?? []);
    if (nested) return nested;
  }
  return undefined;
}

/**
 * The global pipe: closed DTOs (unknown properties are errors, not silently
 * dropped), nested validation, no implicit type conversion (a string is never
 * taken for a number), and errors as VALIDATION_ERROR with one entry per field.
 */
@Injectable()
export class RequestValidationPipe extends ValidationPipe {
  private readonly isCertainlyValid: (object: object) => boolean;

  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      exceptionFactory: (errors: ValidationError[]) => {
        const fieldErrors = toFieldErrors(errors);
        return validationError(`The request has ${fieldErrors.length} invalid field(s).`, { reason: requestReasonOf(errors), errors: fieldErrors });
      },
    });
    this.isCertainlyValid = createValidityCheck();
  }

  /** class-validator's errors, computed only when the compiled check is not sure there are none (validity-check.ts). */
  protected override validate(object: object, validatorOptions?: ValidatorOptions): Promise<ValidationError[]> | ValidationError[] {
    if (!validatorOptions?.groups?.length && this.isCertainlyValid(object)) return [];
    return super.validate(object, validatorOptions);
  }

  /**
   * What the pipe validates comes from JSON (the body parser) or a URL (a
   * path or query parameter), neither of which can hold a binary value: the
   * search for one nested in the instance (class-validator's rules of every
   * nested class looked up again for each request, a seventh of a replayed
   * authorize's CPU) can only find nothing.
   */
  protected override findNestedBinaryValues(): ValidationError[] {
    return [];
  }

  /**
   * A body DTO needs a JSON object: `null`, an array or a scalar is refused before class-transformer sees it.
   *
   * Unknown properties are refused by their own names, including names every
   * object has (`constructor`, `toString`, `__proto__`, `prototype`...):
   * Nest strips the prototype keys and class-transformer skips a key naming a
   * function of the prototype, so class-validator's whitelist never sees
   * them, and they would be dropped in silence (docs/security.md, "Hostile input").
   */
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && this.toValidate(metadata) && value !== undefined) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw validationError('The request body must be a JSON object.', { reason: 'body_must_be_object' });
      }
    }
    if (!metadata.metatype || !this.toValidate(metadata) || !hasInheritedName(value)) return super.transform(value, metadata);
    const inherited = inheritedNames(value);
    let outcome: { transformed: unknown } | { refused: DomainError };
    try {
      outcome = { transformed: await super.transform(value, metadata) };
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== ErrorCodes.VALIDATION_ERROR) throw error;
      outcome = { refused: error };
    }
    // Refused, there is no instance: the same one again from the value, which super.transform stripped in place.
    const instance = 'transformed' in outcome ? outcome.transformed : plainToInstance(metadata.metatype as new () => object, value, { enableImplicitConversion: false });
    const reported = new Set('refused' in outcome ? (outcome.refused.errors ?? []).map((error) => error.field) : []);
    const unknown = inherited.filter((name) => !reported.has(name.field) && isUndeclared(instance, name));
    if (unknown.length === 0) {
      if ('refused' in outcome) throw outcome.refused;
      return outcome.transformed;
    }
    const errors = [...('refused' in outcome ? (outcome.refused.errors ?? []) : []), ...unknown.map(({ field }) => ({ field, reason: REASON_BY_CONSTRAINT.whitelistValidation }))];
    throw validationError(`The request has ${errors.length} invalid field(s).`, { reason: 'refused' in outcome ? outcome.refused.reason : undefined, errors });
  }
}

/** A key sent in an object of the request, where it was, as the field path reports it. */
interface InheritedName {
  field: string;
  steps: Array<string | number>;
  key: string;
}

/** A name every object has (Object.prototype's members, `__proto__` among them) or every function has (`prototype`). */
function isInherited(key: string): boolean {
  return key === 'prototype' || key in Object.prototype;
}

/** Whether an own key of `value`, at any depth, names something every object has: almost never, and found without allocating. */
function hasInheritedName(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasInheritedName);
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (isInherited(key) || hasInheritedName((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/** Every own key of `value`, at any depth, that names something every object has, where it was. */
function inheritedNames(value: unknown, steps: Array<string | number> = [], field = ''): InheritedName[] {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((item, index) => inheritedNames(item, [...steps, index], joinPath(field, String(index))));
  return Object.keys(value).flatMap((key) => {
    const path = joinPath(field, key);
    const own = isInherited(key) ? [{ field: path, steps, key }] : [];
    return [...own, ...inheritedNames((value as Record<string, unknown>)[key], [...steps, key], path)];
  });
}

/**
 * Whether the object at `steps` of the instance is one of the DTO classes
 * and neither declares `key` nor holds it as its own property (which
 * class-validator's whitelist then reports). An object of no class (a free
 * map of values) takes any key it still holds: one the transformation
 * dropped is refused rather than lost.
 */
function isUndeclared(instance: unknown, { steps, key }: InheritedName): boolean {
  let holder = instance;
  for (const step of steps) {
    if (holder === null || typeof holder !== 'object') return false;
    holder = (holder as Record<string | number, unknown>)[step];
  }
  if (holder === null || typeof holder !== 'object' || Array.isArray(holder)) return false;
  const prototype = Object.getPrototypeOf(holder) as object | null;
  if (prototype === null || prototype === Object.prototype) return !Object.prototype.hasOwnProperty.call(holder, key);
  const declared = getMetadataStorage().getTargetValidationMetadatas(prototype.constructor, '', false, false, undefined);
  return !declared.some((rule) => rule.propertyName === key) && !Object.prototype.hasOwnProperty.call(holder, key);
}
