import { Module } from '@nestjs/common';
import { ReadYourWrites } from '../../read-your-writes';
import { RequestCommands } from '../../request-commands';
import { DisableWebhookEndpointHandler, RegisterWebhookEndpointHandler, RotateWebhookSecretHandler } from './webhook-endpoints.commands';
import { WebhookEndpointsHttpController } from './webhook-endpoints.http.controller';
import { WebhookRedeliveryHttpController } from './webhook-redelivery.http.controller';
import { GetWebhookEndpointHandler, ListWebhookDeliveriesHandler, ListWebhookEndpointsHandler } from './webhook-endpoints.queries';

/** Webhook endpoint management (docs/reference/webhooks.md, "Managing endpoints"), scope consent:admin; deliveries themselves are WebhooksDispatchModule's. */
@Module({
  controllers: [WebhookEndpointsHttpController, WebhookRedeliveryHttpController],
  providers: [
    ReadYourWrites,
    RequestCommands,
    RegisterWebhookEndpointHandler,
    RotateWebhookSecretHandler,
    DisableWebhookEndpointHandler,
    ListWebhookEndpointsHandler,
    GetWebhookEndpointHandler,
    ListWebhookDeliveriesHandler,
  ],
})
export class WebhookEndpointsModule {}
