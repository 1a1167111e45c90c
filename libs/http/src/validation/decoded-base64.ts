import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { registerDecorator } from 'class-validator';
import { Base64Bytes } from '@ledger/platform';

/**
 * A member whose base64 string the platform decoded as the body arrived
 * (on a route marked @EvidenceBytes()): the DTO holds the Base64Bytes as
 * decoded, and a string that was not canonical base64, or not a string, is
 * refused with the reason `invalid_base64` on the member's path.
 */
export function DecodedBase64(): PropertyDecorator {
  return applyDecorators(
    // class-transformer copies a class instance's own keys into a new one, which would leave it empty: keep the decoded one.
    Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => obj[key]),
    (target: object, propertyName: string | symbol) =>
      registerDecorator({
        name: 'invalidBase64',
        target: target.constructor,
        propertyName: String(propertyName),
        validator: {
          validate: (value: unknown) => value instanceof Base64Bytes && value.bytes !== undefined,
          defaultMessage: () => `${String(propertyName)} must be base64`,
        },
      }),
  );
}
