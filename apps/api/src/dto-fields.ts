import { applyDecorators } from '@nestjs/common';
import { IsDefined, IsInt, IsNotEmpty, IsString, Matches, MaxLength, Min } from 'class-validator';

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
