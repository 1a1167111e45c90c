import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidationOptions, ValidatorOptions, registerDecorator } from 'class-validator';
import { FieldError, validationError } from '@ledger/platform';
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
    const own = error.constraints ? [{ field: path, reason: reasonOf(error) }] : [];
    return [...own, ...toFieldErrors(error.children ?? [], path)];
  });
}

function joinPath(parent: string, property: string): string {
  if (/^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent === '' ? property : `${parent}.${property}`;
}

function reasonOf(error: ValidationError): string {
  const names = Object.keys(error.constraints ?? {});
  if (names.includes('whitelistValidation')) return REASON_BY_CONSTRAINT.whitelistValidation;
  if (error.value === undefined) return 'required';
  const name = names.find((n) => TYPE_CONSTRAINTS.includes(n)) ?? names[0];
  return REASON_BY_CONSTRAINT[name] ?? name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z])([A-Z][a-z])/g, '$1_$2').toLowerCase();
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

  /** A body DTO needs a JSON object: `null`, an array or a scalar is refused before class-transformer sees it. */
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && this.toValidate(metadata) && value !== undefined) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw validationError('The request body must be a JSON object.', { reason: 'body_must_be_object' });
      }
    }
    return super.transform(value, metadata);
  }
}
