import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError, ErrorCodes, Scope, currentContext, unauthenticated } from '@ledger/platform';
import { ANY_OF_SCOPES, PUBLIC_ROUTE, REQUIRED_SCOPES } from './auth.decorators';
import { assertScope } from './scopes';

/**
 * The global guard: every route is closed unless it says otherwise. The
 * caller was authenticated before its body was read (authenticationHook);
 * this checks that the route's scopes are the key's.
 */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;

    // The hook authenticated every route its config does not mark public: a route whose config and metadata disagree stays closed.
    const principal = currentContext()?.principal;
    if (!principal) throw unauthenticated('Send an API key as "Authorization: Bearer <apiKey>".');

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
