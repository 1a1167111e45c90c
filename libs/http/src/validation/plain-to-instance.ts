import { ClassTransformOptions, TransformationType } from 'class-transformer';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';

// Where class-transformer keeps its decorators' metadata and its defaults: its index exports neither.
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: MetadataStorage };
const { defaultOptions } = require('class-transformer/cjs/constants/default-options.constant') as { defaultOptions: ClassTransformOptions };

type Class = new () => object;
type TypeMetadata = NonNullable<ReturnType<MetadataStorage['findTypeMetadata']>>;
type TransformMetadata = ReturnType<MetadataStorage['findTransformMetadatas']>[number];

/** A value the builder is not sure class-transformer would build the same way from. */
const UNSURE = Symbol('unsure');

/** What class-transformer applies to a property of a class: its `@Type` and its `@Transform`s. */
interface PropertyDecorators {
  type: TypeMetadata | undefined;
  transforms: TransformMetadata[];
}

/** Targets class-transformer converts a value to (`String(value)`, `new Date(value)`...) rather than copies it into. */
const CONVERTED_TARGETS: ReadonlySet<unknown> = new Set([String, Number, Boolean, Date, Buffer]);

/**
 * The instance class-transformer's `plainToInstance(target, value, options)`
 * builds for a JSON request body; `undefined` when it cannot be sure, and
 * the validation pipe then runs class-transformer itself.
 *
 * class-transformer looks every decorator up again for every key of every
 * object of every request, and Nest's pipe walks the value three more times
 * first (prototype keys, array gaps, binary values), none of which a parsed
 * JSON body can have: together a quarter of a repeated authorize's CPU
 * (issue 14's profiles). This follows class-transformer's own algorithm for
 * what a JSON body holds (plain objects, arrays, strings, numbers, booleans,
 * null) and the decorators the DTOs use, looked up once per class and key: a
 * new instance of the target (`new target()`), each key of the value copied
 * in order, a nested value built as its property's `@Type`, an array as a new
 * array, keys that name a method or a getter of the instance skipped, then
 * the property's `@Transform` functions called as class-transformer calls
 * them. Anything else is unsure: a value that is not plain JSON data (another
 * prototype than Object's, a sparse array, a `__proto__`, `prototype` or
 * `constructor` key, which Nest's pipe strips first), a class with `@Expose`
 * or `@Exclude`, a `@Type` with a discriminator, a target converted rather
 * than built, options other than class-transformer's defaults.
 * apps/api's request-validation.spec.ts holds it to class-transformer over
 * every request body of the API document.
 */
export function createPlainToInstance(
  transformOptions: ClassTransformOptions = {},
  storage: MetadataStorage = defaultMetadataStorage,
): (target: Class, value: object) => object | undefined {
  const options: ClassTransformOptions = { ...defaultOptions, ...transformOptions };
  if ((Object.keys(options) as Array<keyof ClassTransformOptions>).some((key) => options[key] !== defaultOptions[key])) return () => undefined;
  const decoratorsByClass = new Map<Class, Map<string, PropertyDecorators | typeof UNSURE> | typeof UNSURE>();

  const decoratorsOf = (target: Class, key: string): PropertyDecorators | typeof UNSURE => {
    let byKey = decoratorsByClass.get(target);
    if (byKey === undefined) {
      const copied = storage.getStrategy(target) === 'none' && storage.getExposedMetadatas(target).length === 0 && storage.getExcludedMetadatas(target).length === 0;
      decoratorsByClass.set(target, (byKey = copied ? new Map() : UNSURE));
    }
    if (byKey === UNSURE) return UNSURE;
    let decorators = byKey.get(key);
    if (decorators === undefined) {
      const type = storage.findTypeMetadata(target, key);
      // Without groups in the options, class-transformer applies the transforms that name none.
      const transforms = storage.findTransformMetadatas(target, key, TransformationType.PLAIN_TO_CLASS).filter((m) => !m.options?.groups?.length);
      decorators = type?.options?.discriminator ? UNSURE : { type, transforms };
      byKey.set(key, decorators);
    }
    return decorators;
  };

  const build = (value: unknown, target: Class | undefined, arrayType: unknown): unknown => {
    if (target !== undefined && CONVERTED_TARGETS.has(target)) return UNSURE;
    if (value === null || typeof value !== 'object') return typeof value === 'function' ? UNSURE : value;
    if (Array.isArray(value)) {
      if (arrayType !== undefined && arrayType !== Array) return UNSURE;
      const array: unknown[] = [];
      for (let index = 0; index < value.length; index += 1) {
        if (!(index in value)) return UNSURE;
        const item = build(value[index], target, undefined);
        if (item === UNSURE) return UNSURE;
        array.push(item);
      }
      return array;
    }
    if (Object.getPrototypeOf(value) !== Object.prototype) return UNSURE;
    const source = value as Record<string, unknown>;
    const built = (target ? new target() : {}) as Record<string, unknown>;
    const prototype = built.constructor.prototype as object;
    for (const key of Object.keys(source)) {
      if (key === '__proto__' || key === 'prototype' || key === 'constructor') return UNSURE;
      const decorators = target ? decoratorsOf(target, key) : undefined;
      if (decorators === UNSURE) return UNSURE;
      // class-transformer does not overwrite a method or a read-only accessor of the instance.
      const descriptor = Object.getOwnPropertyDescriptor(prototype, key);
      if ((descriptor && !descriptor.set) || built[key] instanceof Function) continue;
      const item = source[key];
      const typeMetadata = decorators?.type;
      // Called as class-transformer calls it, every time: a type function may look at the object.
      const type = typeMetadata && ((typeMetadata.typeFunction ? typeMetadata.typeFunction({ newObject: built, object: source, property: key }) : typeMetadata.reflectedType) as Class);
      let property = build(item, type, Array.isArray(item) ? typeMetadata?.reflectedType : undefined);
      if (property === UNSURE) return UNSURE;
      for (const transform of decorators?.transforms ?? []) {
        property = transform.transformFn({ value: property, key, obj: source, type: TransformationType.PLAIN_TO_CLASS, options });
      }
      built[key] = property;
    }
    return built;
  };

  return (target, value) => {
    const built = build(value, target, undefined);
    return built === UNSURE ? undefined : (built as object);
  };
}
