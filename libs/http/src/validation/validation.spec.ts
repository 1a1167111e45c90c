import type { ValidationError } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsArray, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { DomainError } from '@ledger/platform';
import { RequestValidationPipe, toFieldErrors } from './validation';

const error = (property: string, value: unknown, constraints?: Record<string, string>, children: ValidationError[] = []): ValidationError => ({
  property,
  value,
  constraints,
  children,
});

describe('toFieldErrors', () => {
  it('flattens nested errors into full paths with array indexes', () => {
    const tree = [
      error('identifiers', [{}], undefined, [
        error('0', {}, undefined, [error('verification', {}, undefined, [error('method', 'x', { isIn: 'method must be one of x' })])]),
      ]),
    ];
    expect(toFieldErrors(tree)).toEqual([{ field: 'identifiers[0].verification.method', reason: 'invalid_value' }]);
  });

  it('says required when the value is absent, whatever the constraint', () => {
    expect(toFieldErrors([error('name', undefined, { isString: 'name must be a string' })])).toEqual([{ field: 'name', reason: 'required' }]);
  });

  it('says unknown_property for a property the DTO does not declare', () => {
    expect(toFieldErrors([error('extra', 'v', { whitelistValidation: 'property extra should not exist' })])).toEqual([
      { field: 'extra', reason: 'unknown_property' },
    ]);
  });

  it('prefers the type check when a field fails several constraints', () => {
    const failures = { maxLength: 'too long', isString: 'must be a string' };
    expect(toFieldErrors([error('name', 5, failures)])).toEqual([{ field: 'name', reason: 'must_be_string' }]);
  });

  it('derives a snake_case reason from any other constraint name, never from its message', () => {
    const result = toFieldErrors([
      error('id', 'v', { isUUID: 'id must be a UUID, got secret' }),
      error('code', 'v', { internalConsentCodeIsServerGenerated: 'secret' }),
    ]);
    expect(result).toEqual([
      { field: 'id', reason: 'is_uuid' },
      { field: 'code', reason: 'internal_consent_code_is_server_generated' },
    ]);
  });
});

class Item {
  @IsString() name!: string;
}

class Body {
  @IsString() title!: string;
  @IsOptional() @ValidateNested() @Type(() => Item) item?: Item;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => Item) items?: Item[];
  @IsOptional() @IsObject() labels?: Record<string, string>;
}

// Issue 32: names every object has were dropped in silence, as if unknown properties were accepted.
describe('RequestValidationPipe and names every object has', () => {
  const pipe = new RequestValidationPipe();
  const refusal = async (value: unknown, type: 'body' | 'query' = 'body') => {
    try {
      await pipe.transform(value, { type, metatype: Body, data: '' });
    } catch (error) {
      return error as DomainError;
    }
    throw new Error('accepted');
  };
  const NAMES = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', '__proto__', 'prototype', 'isPrototypeOf'];

  it.each(NAMES)('refuses %s as an unknown property, at the top, in a nested object and in an array of objects', async (name) => {
    const inherited = (object: object) => Object.defineProperty({ ...object }, name, { value: 'x', enumerable: true, configurable: true, writable: true });
    for (const [value, field] of [
      [inherited({ title: 't' }), name],
      [{ title: 't', item: inherited({ name: 'n' }) }, `item.${name}`],
      [{ title: 't', items: [{ name: 'n' }, inherited({ name: 'n' })] }, `items[1].${name}`],
    ] as const) {
      const error = await refusal(value);
      expect({ field, code: error.code, errors: error.errors }).toEqual({ field, code: 'VALIDATION_ERROR', errors: [{ field, reason: 'unknown_property' }] });
    }
    expect((await refusal(inherited({ title: 't' }), 'query')).errors).toEqual([{ field: name, reason: 'unknown_property' }]);
  });

  it('reports them with the other failures of the request', async () => {
    const error = await refusal({ title: 5, toString: 'x', extra: 1 });
    expect(error.errors).toEqual(expect.arrayContaining([{ field: 'title', reason: 'must_be_string' }, { field: 'extra', reason: 'unknown_property' }, { field: 'toString', reason: 'unknown_property' }]));
    expect(error.errors).toHaveLength(3);
  });

  it('refuses them as keys of a free map of values when the transformation would drop them, rather than lose them in silence', async () => {
    const error = await refusal({ title: 't', labels: { toString: 'x', kept: 'y' } });
    expect(error.errors).toEqual([{ field: 'labels.toString', reason: 'unknown_property' }]);
  });

  it('leaves the keys of a free map of values that the transformation keeps to the rules of that map', async () => {
    const transformed = (await pipe.transform({ title: 't', labels: { kept: 'y', other: 'z' } }, { type: 'body', metatype: Body, data: '' })) as { labels: unknown };
    expect(transformed.labels).toEqual({ kept: 'y', other: 'z' });
  });
});
