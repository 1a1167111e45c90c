import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import type { Queue } from 'bullmq';
import { IsInt, IsOptional, Min } from 'class-validator';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { CLOCK, Clock, Principal, Scopes, notFound } from '@ledger/platform';
import { InjectQueue } from '@ledger/queues';
import { DeliveryQueue, findEndpoint, loadWebhookEndpoints, redeliverFailed, redeliverMessage } from '@ledger/webhooks';
import { ResourceIdPipe } from '../../resource-id.pipe';
import { webhookDeliveriesQueue } from '../webhook-deliveries.queue';
import { ProblemResponses } from '../../openapi/problem-responses';

export class RedeliverFailedRequestDto {
  @ApiPropertyOptional({ type: 'integer', description: 'Only deliveries that failed for good at or after this instant (epoch ms); default: all.' })
  @IsOptional()
  @IsInt()
  @Min(0)
  since?: number;
}

export class RedeliveredFailedDto {
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ type: 'integer', description: 'How many failed deliveries were put back to work.' }) redelivered!: number;
}

export class RedeliveredMessageDto {
  @ApiProperty({ description: 'The message id: the body `id` and `webhook-id`, unchanged, so a receiver that already has it can ignore it.' }) messageId!: string;
}

const MESSAGE_ID = /^evt_[0-9a-f]{32}$/;

/** Redelivery (issue 5): one message again, or every failed one since an instant. Scope consent:admin. */
@ApiTags('webhooks')
@ApiBearerAuth()
@Controller('v1/webhook-endpoints/:endpointId')
export class WebhookRedeliveryHttpController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @InjectQueue(webhookDeliveriesQueue.name) private readonly queue: Queue,
  ) {}

  @Post('redeliver')
  @HttpCode(200)
  @RequireScopes(Scopes.ADMIN)
  @ApiOperation({
    operationId: 'redeliverFailedWebhookMessages',
    summary: 'Redeliver every failed message of an endpoint since an instant',
    description:
      'Deliveries that exhausted their retries (about a day) stay in the failed set; this puts those of the endpoint that failed at or after `since` back to work, ' +
      'each with a new round of attempts and the same `webhook-id`. Scope `consent:admin`. An unknown endpoint, or one of another tenant, is 404.',
  })
  @ApiOkResponse({ type: RedeliveredFailedDto })
  async redeliverFailed(
    @Param('endpointId', new ResourceIdPipe('webhook endpoint')) endpointId: string,
    @Body() body: RedeliverFailedRequestDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<RedeliveredFailedDto> {
    findEndpoint((await loadWebhookEndpoints(this.store, principal.tenantId)).endpoints, endpointId);
    const redelivered = await redeliverFailed(this.store, this.queue as unknown as DeliveryQueue, { endpointId, tenantId: principal.tenantId, since: body.since ?? 0 });
    return { endpointId, redelivered };
  }

  @Post('messages/:messageId/redeliver')
  @HttpCode(202)
  @RequireScopes(Scopes.ADMIN)
  @ApiOperation({
    operationId: 'redeliverWebhookMessage',
    summary: 'Deliver one message to an endpoint again',
    description:
      'Whatever became of it: a receiver that lost a message asks for it again. The message is rebuilt from its fact and keeps its `webhook-id`. ' +
      'Only a message that was meant for this endpoint (it has attempts recorded) can be redelivered; a disabled endpoint is 409 `webhook_endpoint_disabled`. Scope `consent:admin`.',
  })
  @ApiAcceptedResponse({ type: RedeliveredMessageDto, description: 'Queued for delivery.' })
  @ProblemResponses({ 409: ['webhook_endpoint_disabled'] })
  async redeliverMessage(
    @Param('endpointId', new ResourceIdPipe('webhook endpoint')) endpointId: string,
    @Param('messageId') messageId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<RedeliveredMessageDto> {
    if (!MESSAGE_ID.test(messageId)) throw notFound('webhook message');
    const target = { tenantId: principal.tenantId, endpointId, messageId };
    const { messageId: queued } = await redeliverMessage(this.store, this.queue as unknown as DeliveryQueue, target, this.clock.now());
    return { messageId: queued };
  }
}
