import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

/**
 * Declares the problem+json answers an operation gives, by status, with the
 * stable `code`s each can carry, so that a client generated from the
 * document knows every business refusal by name (the shared Problem schema
 * is added by buildOpenApiDocument).
 */
export function ProblemResponses(codesByStatus: Record<number, readonly string[]>): MethodDecorator {
  return applyDecorators(
    ...Object.entries(codesByStatus).map(([status, codes]) =>
      ApiResponse({
        status: Number(status),
        description: codes.map((code) => `\`${code}\``).join(', '),
        content: {
          'application/problem+json': {
            schema: { allOf: [{ $ref: '#/components/schemas/Problem' }, { type: 'object', properties: { code: { type: 'string', enum: [...codes] } } }] },
          },
        },
      }),
    ),
  );
}
