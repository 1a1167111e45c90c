import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { IdentifierProtection, LEDGER_CONFIG, LedgerConfig } from '@ledger/platform';
import { checkEndpointUrl, disableWebhookEndpoint, registerWebhookEndpoint, rotateWebhookSecret } from '@ledger/webhooks';
import { RequestCommands } from '../../request-commands';
import { egressPolicyOf } from '../egress-policy';
import { WebhookEventType } from '@ledger/webhooks';
import { RegisteredWebhookEndpointDto, RotatedWebhookSecretDto } from './webhook-endpoint.dto';

export class RegisterWebhookEndpointCommand {
  constructor(readonly request: { url: string; eventTypes: WebhookEventType[] }) {}
}

export class RotateWebhookSecretCommand {
  constructor(
    readonly endpointId: string,
    readonly overlapMs: number,
  ) {}
}

export class DisableWebhookEndpointCommand {
  constructor(readonly endpointId: string) {}
}

// Endpoints are read from their stream in the store, never from the read
// model: these commands have nothing projected to wait for (position null).

@CommandHandler(RegisterWebhookEndpointCommand)
export class RegisterWebhookEndpointHandler implements ICommandHandler<RegisterWebhookEndpointCommand, RegisteredWebhookEndpointDto> {
  constructor(
    private readonly commands: RequestCommands,
    private readonly protection: IdentifierProtection,
    @Inject(LEDGER_CONFIG) private readonly config: LedgerConfig,
  ) {}

  async execute({ request }: RegisterWebhookEndpointCommand): Promise<RegisteredWebhookEndpointDto> {
    // Before anything is recorded: a refused URL is a 400 on field `url`. The normalized form is what is registered.
    const url = await checkEndpointUrl(request.url, egressPolicyOf(this.config));
    return this.commands.run(async (store, context) => {
      const { endpoint, secret } = await registerWebhookEndpoint({ store, protection: this.protection }, { url, eventTypes: request.eventTypes }, context);
      const result: RegisteredWebhookEndpointDto = {
        endpointId: endpoint.endpointId,
        url: endpoint.url,
        eventTypes: endpoint.eventTypes,
        secret,
        status: endpoint.disabled ? 'disabled' : 'active',
        createdAt: endpoint.registeredAt,
      };
      return { result, position: null };
    });
  }
}

@CommandHandler(RotateWebhookSecretCommand)
export class RotateWebhookSecretHandler implements ICommandHandler<RotateWebhookSecretCommand, RotatedWebhookSecretDto> {
  constructor(
    private readonly commands: RequestCommands,
    private readonly protection: IdentifierProtection,
  ) {}

  execute({ endpointId, overlapMs }: RotateWebhookSecretCommand): Promise<RotatedWebhookSecretDto> {
    return this.commands.run(async (store, context) => {
      const { endpoint, secret } = await rotateWebhookSecret({ store, protection: this.protection }, endpointId, overlapMs, context);
      // The rotation caps every earlier secret at its previousSecretsValidUntil, and the one current before it gets exactly that.
      const previousSecretsValidUntil = Math.max(...endpoint.secrets.map((s) => s.validUntil ?? -Infinity));
      return { result: { endpointId: endpoint.endpointId, secret, previousSecretsValidUntil }, position: null };
    });
  }
}

@CommandHandler(DisableWebhookEndpointCommand)
export class DisableWebhookEndpointHandler implements ICommandHandler<DisableWebhookEndpointCommand, void> {
  constructor(private readonly commands: RequestCommands) {}

  /** Idempotent: an endpoint already disabled records nothing more and still answers. */
  execute({ endpointId }: DisableWebhookEndpointCommand): Promise<void> {
    return this.commands.run(async (store, context) => {
      await disableWebhookEndpoint(store, endpointId, 'deleted', context);
      return { result: undefined, position: null };
    });
  }
}
