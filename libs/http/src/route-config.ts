import { RouteConfig } from '@nestjs/platform-fastify';
import type { Scope } from '@ledger/platform';

/**
 * What this platform reads from a route's Fastify config, beside Fastify's
 * own fields: hooks that run before Nest (authentication, body parsing) only
 * see the route through its config, not through Nest's metadata.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** Open without an API key (see @Public()). */
    public?: boolean;
    /** Every one of these scopes is needed (see @RequireScopes()). */
    requiredScopes?: readonly Scope[];
    /** One of these scopes is needed (see @RequireAnyScope()). */
    anyOfScopes?: readonly Scope[];
    /** The largest body the route reads, in bytes (see @BodyLimit()). */
    bodyLimit?: number;
    /** Every answer is sent with `Cache-Control: no-store` (see @NoStore()). */
    noStore?: boolean;
    /** `contentBase64` strings are decoded as the body arrives (see @EvidenceBytes()). */
    decodesBase64?: boolean;
    /** A person proves who they are here: its 401s spend the address's budget of failures (see @SignIn()). */
    signIn?: boolean;
  }
}

export interface LedgerRouteConfig {
  public?: boolean;
  requiredScopes?: readonly Scope[];
  anyOfScopes?: readonly Scope[];
  bodyLimit?: number;
  noStore?: boolean;
  decodesBase64?: boolean;
  signIn?: boolean;
}

const LEDGER_ROUTE_CONFIG = 'ledger:route-config';

/**
 * Adds to the Fastify config of a route (what Nest's @RouteConfig() sets),
 * keeping what the platform's other decorators put there: @RouteConfig()
 * alone replaces the whole config, so a route that is both public and
 * size-limited would lose one of the two. Use the platform's decorators,
 * never @RouteConfig() directly.
 */
export function extendRouteConfig(config: LedgerRouteConfig): MethodDecorator {
  return (target, key, descriptor) => {
    const merged: LedgerRouteConfig = { ...Reflect.getMetadata(LEDGER_ROUTE_CONFIG, descriptor.value as object), ...config };
    Reflect.defineMetadata(LEDGER_ROUTE_CONFIG, merged, descriptor.value as object);
    RouteConfig(merged)(target, key, descriptor);
  };
}
