import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Idempotent, RequireAnyScope, RequireScopes } from '@ledger/http';
import { Principal, Scopes } from '@ledger/platform';
import { DEFAULT_WEBHOOK_EVENT_TYPES, MAX_ACTIVE_ENDPOINTS } from '@ledger/webhooks';
import { ResourceIdPipe } from '../../resource-id.pipe';
import {
  DEFAULT_OVERLAP_SECONDS,
  ListDeliveriesQueryDto,
  MAX_OVERLAP_SECONDS,
  RegisterWebhookEndpointRequestDto,
  RegisteredWebhookEndpointDto,
  RotateWebhookSecretRequestDto,
  RotatedWebhookSecretDto,
  SIGNATURE_SCHEME,
  URL_POLICY,
  WebhookDeliveryPageDto,
  WebhookEndpointDto,
  WebhookEndpointListDto,
} from './webhook-endpoint.dto';
import { DisableWebhookEndpointCommand, RegisterWebhookEndpointCommand, RotateWebhookSecretCommand } from './webhook-endpoints.commands';
import { GetWebhookEndpointQuery, ListWebhookDeliveriesQuery, ListWebhookEndpointsQuery } from './webhook-endpoints.queries';
import { ProblemResponses } from '../../openapi/problem-responses';

const ENDPOINT_ID = new ResourceIdPipe('webhook endpoint');
const ADMIN_ONLY = 'Scope `consent:admin`.';
const ADMIN_OR_READ = 'Scope `consent:admin` or `consent:read` (which covers every GET).';

/** docs/reference/webhooks.md: where `redec.notification.required` (docs/reference/events.md) is delivered, and how each delivery went. */
@ApiTags('webhooks')
@ApiBearerAuth()
@Controller('v1/webhook-endpoints')
export class WebhookEndpointsHttpController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireScopes(Scopes.ADMIN)
  @Idempotent({ required: false, protectResponse: true })
  @ApiOperation({
    operationId: 'registerWebhookEndpoint',
    summary: 'Register a webhook endpoint',
    description:
      'The endpoint receives every fact of the subscribed types recorded after its registration, until it is deleted. ' +
      'The answer carries the signing `secret` (`whsec_` + base64 of 32 random bytes): it is shown only here, never by a read; keep it, or rotate it to get a new one. ' +
      `${SIGNATURE_SCHEME} ${URL_POLICY} ` +
      `\`eventTypes\`: at least one, each a known type (\`redec.notification.required\`, \`report.created\`); default \`["redec.notification.required"]\`. At most ${MAX_ACTIVE_ENDPOINTS} active endpoints per tenant: one more is 409 \`webhook_endpoint_limit_reached\`. ` +
      `${ADMIN_ONLY} An optional Idempotency-Key replays the first answer exactly, secret included.`,
  })
  @ApiCreatedResponse({ type: RegisteredWebhookEndpointDto })
  @ProblemResponses({ 409: ['webhook_endpoint_limit_reached', 'concurrent_change'] })
  register(@Body() body: RegisterWebhookEndpointRequestDto): Promise<RegisteredWebhookEndpointDto> {
    return this.commandBus.execute(new RegisterWebhookEndpointCommand({ url: body.url, eventTypes: [...(body.eventTypes ?? DEFAULT_WEBHOOK_EVENT_TYPES)] }));
  }

  @Get()
  @RequireAnyScope(Scopes.ADMIN, Scopes.READ)
  @ApiOperation({
    operationId: 'listWebhookEndpoints',
    summary: "The tenant's webhook endpoints",
    description: `Active and disabled, in registration order; never a secret. ${ADMIN_OR_READ}`,
  })
  @ApiOkResponse({ type: WebhookEndpointListDto })
  list(@CurrentPrincipal() principal: Principal): Promise<WebhookEndpointListDto> {
    return this.queryBus.execute(new ListWebhookEndpointsQuery(principal.tenantId));
  }

  @Get(':endpointId')
  @RequireAnyScope(Scopes.ADMIN, Scopes.READ)
  @ApiOperation({
    operationId: 'getWebhookEndpoint',
    summary: 'One webhook endpoint',
    description: `Never its secret. An unknown id, or one of another tenant, is 404. ${ADMIN_OR_READ}`,
  })
  @ApiOkResponse({ type: WebhookEndpointDto })
  get(@Param('endpointId', ENDPOINT_ID) endpointId: string, @CurrentPrincipal() principal: Principal): Promise<WebhookEndpointDto> {
    return this.queryBus.execute(new GetWebhookEndpointQuery(principal.tenantId, endpointId));
  }

  @Delete(':endpointId')
  @HttpCode(204)
  @RequireScopes(Scopes.ADMIN)
  @ApiOperation({
    operationId: 'removeWebhookEndpoint',
    summary: 'Delete (disable) a webhook endpoint',
    description:
      'Nothing recorded after this is delivered to it, and deliveries still pending for it are skipped. The endpoint stays listed as `disabled` (reason `deleted`) with its delivery history, ' +
      'and no longer counts towards the limit of active endpoints. Idempotent: deleting a disabled endpoint answers 204 again and records nothing. ' +
      `An unknown id, or one of another tenant, is 404. ${ADMIN_ONLY}`,
  })
  @ApiNoContentResponse({ description: 'The endpoint is disabled.' })
  @ProblemResponses({ 409: ['concurrent_change'] })
  async remove(@Param('endpointId', ENDPOINT_ID) endpointId: string): Promise<void> {
    await this.commandBus.execute(new DisableWebhookEndpointCommand(endpointId));
  }

  @Post(':endpointId/rotate-secret')
  @HttpCode(200)
  @RequireScopes(Scopes.ADMIN)
  @Idempotent({ required: true, protectResponse: true })
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: "Rotate a webhook endpoint's signing secret",
    description:
      'A new secret signs every delivery from now on, shown only in this answer. The secrets in use before keep signing beside it until `previousSecretsValidUntil` ' +
      `(now + \`overlapSeconds\`, default ${DEFAULT_OVERLAP_SECONDS}, at most ${MAX_OVERLAP_SECONDS}), so the receiver can switch without losing a delivery: meanwhile \`webhook-signature\` carries one \`v1,\` signature per secret. ` +
      `${SIGNATURE_SCHEME} A disabled endpoint is 409 \`webhook_endpoint_disabled\`; an unknown one, or one of another tenant, 404. ` +
      `Idempotency-Key required: an exact retry answers the first rotation, secret included. ${ADMIN_ONLY}`,
  })
  @ApiOkResponse({ type: RotatedWebhookSecretDto })
  @ProblemResponses({ 409: ['webhook_endpoint_disabled', 'concurrent_change'] })
  rotate(@Param('endpointId', ENDPOINT_ID) endpointId: string, @Body() body: RotateWebhookSecretRequestDto): Promise<RotatedWebhookSecretDto> {
    const overlapSeconds = body.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS;
    return this.commandBus.execute(new RotateWebhookSecretCommand(endpointId, overlapSeconds * 1000));
  }

  @Get(':endpointId/deliveries')
  @RequireAnyScope(Scopes.ADMIN, Scopes.READ)
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: 'Delivery attempts to a webhook endpoint',
    description:
      'Every attempt, newest first, with its outcome, the receiver\'s status and latency, and what went wrong. `limit` (1..200, default 50) attempts per page; ' +
      'pass the answer\'s `nextCursor` as `cursor` for the older ones (`nextCursor` is null on the last page; 400 `invalid_cursor` for a cursor this list did not hand out). A disabled endpoint keeps its history. ' +
      `An unknown id, or one of another tenant, is 404. ${ADMIN_OR_READ}`,
  })
  @ApiOkResponse({ type: WebhookDeliveryPageDto })
  deliveries(
    @Param('endpointId', ENDPOINT_ID) endpointId: string,
    @Query() query: ListDeliveriesQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<WebhookDeliveryPageDto> {
    return this.queryBus.execute(new ListWebhookDeliveriesQuery(principal.tenantId, endpointId, query));
  }
}
