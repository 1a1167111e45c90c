import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsDefined, IsInt, IsNotEmpty, IsString, IsUUID, Matches, isUUID, MaxLength, Min } from 'class-validator';

/** Required, non-empty text with a bound: the shape of every reference and code the API takes. */
export function Text(maxLength = 200): PropertyDecorator {
  return applyDecorators(IsDefined(), IsString(), IsNotEmpty(), MaxLength(maxLength));
}

/** An instant in epoch milliseconds, as every timestamp of the spec. */
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

/** A query-string integer: digits only become a number; anything else stays text and fails `must_be_integer`. */
export function QueryInteger(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value));
}
