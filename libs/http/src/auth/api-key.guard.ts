import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { DomainError, ErrorCodes, Scope, requireContext, unauthenticated } from '@ledger/platform';
import { API_KEY_VERIFIER, ApiKeyVerifier } from './api-key-verifier';
import { ANY_OF_SCOPES, PUBLIC_ROUTE, REQUIRED_SCOPES } from './auth.decorators';
import { assertScope } from './scopes';

// RFC 6750 token68 would allow more, but our keys are visible ASCII; anything else is malformed.
const BEARER = /^Bearer ([\x21-\x7e]+)$/i;

/**
 * The global guard: every route is closed unless it says otherwise. The
 * principal goes into the request context, where handlers, the idempotency
 * interceptor and the loggers find it.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(API_KEY_VERIFIER) private readonly verifier: ApiKeyVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;

    const header = context.switchToHttp().getRequest<FastifyRequest>().headers.authorization;
    const apiKey = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (apiKey === undefined) throw unauthenticated('Send an API key as "Authorization: Bearer <apiKey>".');
    const principal = await this.verifier.verify(apiKey);
    if (!principal) throw unauthenticated('The API key is unknown or revoked.');
    requireContext().principal = principal;

    const anyOf = this.reflector.getAllAndOverride<Scope[] | undefined>(ANY_OF_SCOPES, targets);
    if (anyOf) {
      if (anyOf.some((scope) => principal.scopes.includes(scope))) return true;
      throw new DomainError('forbidden', ErrorCodes.INSUFFICIENT_SCOPE, `This operation needs one of the scopes ${anyOf.join(', ')}.`);
    }
    const scopes = this.reflector.getAllAndOverride<Scope[] | undefined>(REQUIRED_SCOPES, targets);
    if (!scopes) {
      throw new DomainError('forbidden', ErrorCodes.INSUFFICIENT_SCOPE, 'This operation is not open to any scope.');
    }
    for (const scope of scopes) assertScope(principal, scope);
    return true;
  }
}
