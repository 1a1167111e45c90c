import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { BodyLimit, Idempotent, RequireScopes } from '@ledger/http';
import { Scopes } from '@ledger/platform';
import { ConfigurationContent, ConfigurationPublished } from '@ledger/redec';
import { ConfigurationResponseDto, configurationResponse } from '../configuration.response.dto';
import { PublishConfigurationCommand } from './publish-configuration.command';
import { PublishConfigurationRequestDto } from './publish-configuration.request.dto';
import { ProblemResponses } from '../../openapi/problem-responses';

/** A 50,000-character text fits even when a client sends every character as a `\uXXXX` escape (6 bytes each). */
const PUBLISH_BODY_LIMIT_BYTES = 512 * 1024;

@ApiTags('configurations')
@ApiBearerAuth()
@Controller('v1/configurations')
export class PublishConfigurationHttpController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post()
  @HttpCode(201)
  @RequireScopes(Scopes.ADMIN)
  @Idempotent({ required: false })
  @BodyLimit(PUBLISH_BODY_LIMIT_BYTES)
  @ApiOperation({
    operationId: 'publishConfiguration',
    summary: 'Publish the next version of a consent template',
    description:
      'Versions are numbered 1, 2, 3… per `templateKey` within the tenant; a published version never changes, and each has its own `configurationId`. ' +
      'Concurrent publications of one template get distinct consecutive versions. `redec.regulatoryProfile` must name a known Regulatory Profile that supports the `channel`; ' +
      '`objectiveCodes` and `scopes[].scopeId` must be unique. An `embedded` configuration may list `embed.allowedOrigins`, the sites that may frame its consent page and receive the data subject back. ' +
      '`gracePeriodDays` (versions after the first) keeps holders of the earlier version compliant for that many days (docs/consent-compliance.md). Scope `consent:admin`. An optional Idempotency-Key replays the first answer exactly. ' +
      'The body may be up to 512 KiB, room for a 50,000-character text however it is escaped (64 KiB elsewhere); a larger one is 413 `PAYLOAD_TOO_LARGE`.',
  })
  @ApiCreatedResponse({ type: ConfigurationResponseDto, description: 'The published version, readable at once with GET /v1/configurations/{configurationId}.' })
  @ProblemResponses({ 409: ['concurrent_change'] })
  async publish(@Body() body: PublishConfigurationRequestDto): Promise<ConfigurationResponseDto> {
    const published = await this.commandBus.execute<PublishConfigurationCommand, ConfigurationPublished['data']>(new PublishConfigurationCommand(toContent(body)));
    return configurationResponse(published);
  }
}

/** Plain data for the fact: exactly the validated members, `redec` null when not sent. */
function toContent(body: PublishConfigurationRequestDto): ConfigurationContent {
  const { redec } = body;
  return {
    templateKey: body.templateKey,
    title: body.title,
    text: body.text,
    channel: body.channel,
    captureTiming: body.captureTiming,
    redec: redec
      ? {
          finalityCode: redec.finalityCode,
          objectiveCodes: [...redec.objectiveCodes],
          scopes: redec.scopes.map((s) => ({ scopeId: s.scopeId, dataCategoryCode: s.dataCategoryCode })),
          targets: [...redec.targets],
          obligationSourceSystem: redec.obligationSourceSystem,
          regulatoryProfile: redec.regulatoryProfile,
        }
      : null,
    embed: body.embed ? { allowedOrigins: [...body.embed.allowedOrigins] } : null,
    gracePeriodDays: body.gracePeriodDays ?? 0,
  };
}
