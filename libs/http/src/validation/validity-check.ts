import { ValidationArguments, getFromContainer, getMetadataStorage } from 'class-validator';

type MetadataStorage = ReturnType<typeof getMetadataStorage>;
type TargetMetadatas = ReturnType<MetadataStorage['getTargetValidationMetadatas']>;
type Metadata = TargetMetadatas[number];

/** One constraint of a property, its validator resolved once. */
interface Rule {
  metadata: Metadata;
  validate: (value: unknown, args: ValidationArguments) => unknown;
}

interface PropertyRules {
  property: string;
  /** @IsOptional, @ValidateIf: when one says no, nothing else of the property runs. */
  conditions: Array<(object: object, value: unknown) => boolean>;
  /** @IsDefined first, then the other constraints: all must hold. */
  rules: Rule[];
  nested: boolean;
}

/** A class's rules grouped once: the properties it may have, and what each must satisfy. */
interface ClassRules {
  allowed: ReadonlySet<string>;
  properties: PropertyRules[];
}

/** A class the check leaves to class-validator: no rules (class-validator's "unknown value"), or a kind of rule not compiled here. */
const UNSUPPORTED = null;

const SUPPORTED_TYPES = new Set(['customValidation', 'isDefined', 'conditionalValidation', 'nestedValidation', 'whitelistValidation']);

/**
 * Whether class-validator, run as the validation pipe runs it (whitelist,
 * forbidNonWhitelisted, no groups), would find nothing wrong with `object`.
 *
 * class-validator answers that question by building an error object for
 * every property, filtering every property's rules four times and walking
 * the tree again to drop the empty errors, on every request: about a tenth
 * of authorize's CPU (issue 14's profiles) to learn, almost always, that the
 * request is valid. This check runs the very same validator functions with
 * the same arguments over rules grouped once per class, and allocates nothing
 * but their arguments.
 *
 * It only ever answers `true` when class-validator would find no error; any
 * doubt (a failed rule, an asynchronous validator, a validator that throws,
 * a kind of rule it does not know) answers `false`, and the pipe then runs
 * class-validator, whose errors are the ones reported. So a request is
 * refused exactly as before; a valid one skips the bookkeeping.
 */
export function createValidityCheck(storage: MetadataStorage = getMetadataStorage()): (object: object) => boolean {
  // Keyed by class: a class's rules are registered by its decorators when
  // the class is defined, before the service validates anything with it.
  const compiled = new WeakMap<object, ClassRules | typeof UNSUPPORTED>();

  const rulesOf = (target: new () => unknown): ClassRules | typeof UNSUPPORTED => {
    let rules = compiled.get(target);
    if (rules === undefined) {
      rules = compile(storage, storage.getTargetValidationMetadatas(target, undefined as unknown as string, false, false, undefined));
      compiled.set(target, rules);
    }
    return rules;
  };

  const isValidNested = (value: unknown): boolean => {
    if (value === undefined) return true;
    if (Array.isArray(value) || value instanceof Set || value instanceof Map) {
      for (const item of value instanceof Map ? value.values() : value) if (!isValidNested(item)) return false;
      return true;
    }
    return value instanceof Object && isValidObject(value);
  };

  const isValidObject = (object: object): boolean => {
    const rules = rulesOf(object.constructor as new () => unknown);
    if (rules === UNSUPPORTED) return false;
    for (const key of Object.keys(object)) if (!rules.allowed.has(key)) return false;
    for (const property of rules.properties) {
      const value = (object as Record<string, unknown>)[property.property];
      if (!property.conditions.every((condition) => condition(object, value))) continue;
      for (const rule of property.rules) if (!holds(rule, object, value)) return false;
      if (property.nested && !isValidNested(value)) return false;
    }
    return true;
  };

  return (object) => {
    try {
      return isValidObject(object);
    } catch {
      // class-validator, run next, meets the same exception and is the one to report it.
      return false;
    }
  };
}

function compile(storage: MetadataStorage, metadatas: TargetMetadatas): ClassRules | typeof UNSUPPORTED {
  if (metadatas.length === 0) return UNSUPPORTED;
  if (metadatas.some((metadata) => !SUPPORTED_TYPES.has(metadata.type) || typeof metadata.target === 'string')) return UNSUPPORTED;
  const byProperty = storage.groupByPropertyName(metadatas);
  const properties = Object.entries(byProperty).map(([property, ofProperty]): PropertyRules => {
    const ruleOf = (metadata: Metadata): Rule[] =>
      storage.getTargetValidatorConstraints(metadata.constraintCls).map((constraint) => {
        const instance = getFromContainer(constraint.target) as { validate: Rule['validate'] };
        return { metadata, validate: instance.validate.bind(instance) };
      });
    return {
      property,
      conditions: ofProperty.filter((m) => m.type === 'conditionalValidation').map((m) => m.constraints[0] as PropertyRules['conditions'][number]),
      rules: [
        ...ofProperty.filter((m) => m.type === 'isDefined').flatMap(ruleOf),
        ...ofProperty.filter((m) => m.type === 'customValidation').flatMap(ruleOf),
      ],
      nested: ofProperty.some((m) => m.type === 'nestedValidation'),
    };
  });
  const allowed = new Set(Object.entries(byProperty).filter(([, ofProperty]) => ofProperty.length > 0).map(([property]) => property));
  return { allowed, properties };
}

/** One rule on one value, as class-validator's customValidations applies it (`each` over arrays, sets and maps' values). */
function holds({ metadata, validate }: Rule, object: object, value: unknown): boolean {
  if (metadata.validateIf && !metadata.validateIf(object, value)) return true;
  const args: ValidationArguments = {
    targetName: object.constructor ? object.constructor.name : (undefined as unknown as string),
    property: metadata.propertyName,
    object,
    value,
    constraints: metadata.constraints,
  };
  if (!metadata.each || !(Array.isArray(value) || value instanceof Set || value instanceof Map)) return isTrue(validate(value, args));
  for (const item of value instanceof Map ? value.values() : value) if (!isTrue(validate(item, args))) return false;
  return true;
}

/** A synchronous yes. A promise is a doubt: class-validator awaits it when it runs next. */
function isTrue(answer: unknown): boolean {
  if (answer !== null && typeof answer === 'object' && typeof (answer as PromiseLike<unknown>).then === 'function') {
    (answer as Promise<unknown>).then(undefined, () => undefined);
    return false;
  }
  return Boolean(answer);
}
