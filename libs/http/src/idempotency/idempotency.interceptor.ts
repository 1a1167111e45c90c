import { CallHandler, ExecutionContext, Inject, Injectable, Logger, NestInterceptor, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Observable, catchError, finalize, mergeMap, of } from 'rxjs';
import { EVENT_STORE, EventMetadata, EventStore, NewEvent, WrongExpectedVersionError } from '@ledger/event-store';
import { CLOCK, Clock, IdentifierProtection, RequestContext, requireContext, timeOrderedId, validationError } from '@ledger/platform';
import { PROBLEM_CONTENT_TYPE, toProblem } from '../problem/problem';
import {
  ClaimedData,
  IdempotencyEventTypes,
  ReleasedData,
  ResponseRecordedData,
  StoredResponse,
  IDEMPOTENCY_LEASE_MS,
  decideIdempotency,
  hashRequest,
  idempotencyStreamId,
  isFinalOutcome,
  isValidIdempotencyKey,
  keyInProgress,
  keyRequired,
} from './idempotency-record';
import { IDEMPOTENT_REPLAYED_HEADER, IDEMPOTENT_ROUTE, IdempotentOptions } from './idempotent-route';

// A claim lost to a concurrent request is decided again on what that request
// wrote; more rounds than this means the key is being fought over.
const MAX_CLAIM_ATTEMPTS = 3;

/** One claim held by this request: where it is, what to stamp on the events that renew and end it, and its heartbeat. */
interface HeldClaim {
  streamId: string;
  revision: number;
  requestHash: string;
  context: RequestContext;
  /** The renewal in flight, if any: the claim's revision moves with each, so renewals and the end take turns. */
  renewal: Promise<void>;
  heartbeat?: NodeJS.Timeout;
}

/**
 * How often a running request renews its claim: well inside the lease, so a
 * request slower than the lease still holds its key and a retry is told it is
 * in progress instead of running it a second time.
 */
export const IDEMPOTENCY_HEARTBEAT_MS = IDEMPOTENCY_LEASE_MS / 3;

/** Injection token: a shorter heartbeat than IDEMPOTENCY_HEARTBEAT_MS, for a test that must outlive a lease quickly. */
export const IDEMPOTENCY_HEARTBEAT = Symbol('IDEMPOTENCY_HEARTBEAT');

/**
 * Runs the Idempotency-Key rules (idempotency-record.ts) around the routes
 * marked @Idempotent(). It runs after the authentication guard (the tenant is
 * known) and before the validation pipe, so a validation error still passes
 * through here and releases the key for a corrected retry.
 */
/** Encryption under the tenant's key, for stored answers that carry a secret (IdentifierProtection in the service). */
export interface ResponseProtection {
  encrypt(tenantId: string, plaintext: string): Promise<string>;
  decrypt(tenantId: string, protectedText: string): Promise<string>;
}

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('idempotency');

  constructor(
    private readonly reflector: Reflector,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(IdentifierProtection) private readonly protection: ResponseProtection,
    @Optional() @Inject(IDEMPOTENCY_HEARTBEAT) private readonly heartbeatMs: number = IDEMPOTENCY_HEARTBEAT_MS,
  ) {}

  async intercept(execution: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const options = this.reflector.getAllAndOverride<IdempotentOptions | undefined>(IDEMPOTENT_ROUTE, [
      execution.getHandler(),
      execution.getClass(),
    ]);
    if (!options) return next.handle();

    const request = execution.switchToHttp().getRequest<FastifyRequest>();
    const reply = execution.switchToHttp().getResponse<FastifyReply>();
    const key = request.headers['idempotency-key'];
    if (key === undefined) {
      if (options.required) throw keyRequired();
      return next.handle();
    }
    if (typeof key !== 'string' || !isValidIdempotencyKey(key)) {
      throw validationError('The Idempotency-Key header must be 1 to 255 visible ASCII characters.', {
        reason: 'invalid_idempotency_key',
      });
    }

    const context = requireContext();
    if (!context.principal) throw new Error('@Idempotent() needs an authenticated route (the key is per tenant)');
    const requestHash = await hashRequest(request.method, request.url.split('?')[0], request.body);
    context.idempotency = { key, requestHash };
    const streamId = idempotencyStreamId(context.principal.tenantId, key);

    const tenantId = context.principal.tenantId;
    const outcome = await this.claim(streamId, requestHash, context);
    if ('response' in outcome) {
      void reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
      return of(this.replay(reply, await this.reveal(tenantId, outcome.response)));
    }
    this.keepAlive(outcome);

    return next.handle().pipe(
      mergeMap(async (body: unknown) => {
        const response = asSent(body, reply);
        const stored = options.protectResponse ? await this.conceal(tenantId, response) : response;
        await this.end(outcome, IdempotencyEventTypes.RESPONSE_RECORDED, { requestHash, ...stored } satisfies ResponseRecordedData);
        // The text stored is what goes out, so the first answer and its replays are the same bytes.
        return this.replay(reply, response);
      }),
      catchError(async (error: unknown) => {
        if (isFinalOutcome(error)) {
          const problem = toProblem(error);
          await this.end(outcome, IdempotencyEventTypes.RESPONSE_RECORDED, {
            requestHash,
            status: problem.status,
            // What ProblemFilter sends for the same error.
            body: JSON.stringify(problem),
            contentType: PROBLEM_CONTENT_TYPE,
          } satisfies ResponseRecordedData);
        } else {
          await this.end(outcome, IdempotencyEventTypes.RELEASED, { requestHash } satisfies ReleasedData);
        }
        throw error;
      }),
      finalize(() => clearInterval(outcome.heartbeat)),
    );
  }

  private async claim(streamId: string, requestHash: string, context: RequestContext): Promise<HeldClaim | { response: StoredResponse }> {
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt += 1) {
      const [last] = await this.store.readStream(streamId, { direction: 'backwards', maxCount: 1 });
      const now = this.clock.now();
      const decision = decideIdempotency(last, requestHash, now);
      if (decision.action === 'reject') throw decision.error;
      if (decision.action === 'replay') return { response: decision.response };
      const data: ClaimedData = { requestHash, claimedAt: now };
      try {
        const { nextRevision } = await this.store.append(
          streamId,
          [this.fact(IdempotencyEventTypes.CLAIMED, data, context, requestHash)],
          decision.expectedRevision,
        );
        return { streamId, revision: nextRevision, requestHash, context, renewal: Promise.resolve() };
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
      }
    }
    throw keyInProgress();
  }

  /**
   * Ends the claim with the answer or a release, at the claim's revision: if
   * the claim went stale and another request took the key over, that request
   * owns the answer and this append is refused. The client still gets this
   * response; failing it now would make it retry an operation that happened.
   */
  /** Renews the claim every heartbeatMs while the request runs (the lease's clock is the service clock). */
  private keepAlive(claim: HeldClaim): void {
    claim.heartbeat = setInterval(() => {
      claim.renewal = claim.renewal.then(() => this.renew(claim));
    }, this.heartbeatMs);
    // A heartbeat never keeps the process alive on its own.
    claim.heartbeat.unref();
  }

  private async renew(claim: HeldClaim): Promise<void> {
    const data: ClaimedData = { requestHash: claim.requestHash, claimedAt: this.clock.now() };
    try {
      const { nextRevision } = await this.store.append(
        claim.streamId,
        [this.fact(IdempotencyEventTypes.CLAIMED, data, claim.context, claim.requestHash)],
        claim.revision,
      );
      claim.revision = nextRevision;
    } catch (error) {
      // Taken over (the process stalled past the lease) or the store failed: the next renewal, or the end, says so again.
      this.logger.warn(`could not renew the claim: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async end(claim: HeldClaim, type: string, data: ResponseRecordedData | ReleasedData): Promise<void> {
    clearInterval(claim.heartbeat);
    await claim.renewal;
    try {
      await this.store.append(
        claim.streamId,
        [this.fact(type, data, claim.context, claim.requestHash)],
        claim.revision,
      );
    } catch (error) {
      const why = error instanceof WrongExpectedVersionError ? 'the claim was taken over' : 'the store failed';
      this.logger.warn(`could not record ${type} (${why}): ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private fact(type: string, data: unknown, context: RequestContext, requestHash: string): NewEvent {
    const metadata: EventMetadata = {
      tenantId: context.principal?.tenantId,
      correlationId: context.correlationId,
      actor: context.principal?.keyId,
      recordedAt: this.clock.now(),
      schemaVersion: 1,
      idempotencyKey: context.idempotency?.key,
      requestHash,
    };
    return { id: timeOrderedId(metadata.recordedAt), type, data, metadata };
  }

  private async conceal(tenantId: string, response: StoredResponse): Promise<StoredResponse> {
    return response.body === null ? response : { ...response, body: await this.protection.encrypt(tenantId, response.body), bodyProtected: true };
  }

  private async reveal(tenantId: string, response: StoredResponse): Promise<StoredResponse> {
    if (!response.bodyProtected || response.body === null) return response;
    const { bodyProtected: _protected, ...stored } = response;
    return { ...stored, body: await this.protection.decrypt(tenantId, response.body) };
  }

  private replay(reply: FastifyReply, response: StoredResponse): string | undefined {
    void reply.status(response.status);
    if (response.contentType !== null) void reply.header('content-type', response.contentType);
    return response.body ?? undefined;
  }
}

/**
 * The response a handler's value becomes, serialized here as Fastify would
 * (JSON.stringify: this service declares no response schemas), with the
 * content type Fastify would give it unless the handler set one.
 */
function asSent(body: unknown, reply: FastifyReply): StoredResponse {
  const declared = reply.getHeader('content-type');
  const contentType = declared === undefined ? undefined : String(declared);
  if (body === undefined) return { status: reply.statusCode, body: null, contentType: contentType ?? null };
  if (typeof body === 'string') return { status: reply.statusCode, body, contentType: contentType ?? 'text/plain; charset=utf-8' };
  return { status: reply.statusCode, body: JSON.stringify(body), contentType: contentType ?? 'application/json; charset=utf-8' };
}
