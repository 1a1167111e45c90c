import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Idempotent, RequireScopes } from '@ledger/http';
import { Scopes } from '@ledger/platform';
import { RevocationAnswer } from '@ledger/redec';
import { RevocationResponseDto, RevokeRequestDto } from './revoke.request.dto';
import { RevokeConsentCommand } from './revoke.command';
import { ResourceIdPipe } from '../../../resource-id.pipe';
import { ProblemResponses } from '../../../openapi/problem-responses';

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/consents')
export class RevokeHttpController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post(':redecConsentId/revoke')
  @HttpCode(201)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'revokeRedecConsent',
    summary: 'Record the revocation of a consent',
    description:
      'Idempotency-Key required, stable per revocation: a retry answers the first revocation. A granted consent becomes `revoked` and stops enabling new accesses. ' +
      'While a credit extension is active (an `extended` consent is not revocable), the revocation is kept as a fact with `effective: false` and the status is unchanged; ' +
      'it still ends every `initial_window` authorization from revokedAt, and takes effect when the last extension ends. ' +
      "occurredAt may be neither after the receipt, nor before the grant, nor further back than the Regulatory Profile's maxOccurredAtSkewMs (baseline 7 days): 400. " +
      'identityAssurance must be one the consent\'s Regulatory Profile accepts on the channel. ' +
      'A second revocation is 409 `redec_consent_already_revoked`. The bank is told to notify the data subject through the `redec.notification.required` webhook (reason `revoke`).',
  })
  @ApiCreatedResponse({ type: RevocationResponseDto })
  @ProblemResponses({ 404: ['NOT_FOUND'], 409: ['redec_consent_already_revoked', 'regulatory_profile_unavailable', 'concurrent_change'] })
  revoke(@Param('redecConsentId', new ResourceIdPipe('consent')) redecConsentId: string, @Body() body: RevokeRequestDto): Promise<RevocationAnswer> {
    const { channel, occurredAt, sourceType, identityAssurance } = body;
    return this.commandBus.execute(new RevokeConsentCommand(redecConsentId, { channel, occurredAt, sourceType, identityAssurance }));
  }
}
