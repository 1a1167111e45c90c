import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Idempotent, RequireScopes } from '@ledger/http';
import { Scopes } from '@ledger/platform';
import { NotificationEvidenceAnswer } from '@ledger/redec';
import { RecordNotificationEvidenceCommand } from './notification-evidence.command';
import { NotificationEvidenceRequestDto, NotificationEvidenceResponseDto } from './notification-evidence.request.dto';
import { ResourceIdPipe } from '../../../resource-id.pipe';
import { ProblemResponses } from '../../../openapi/problem-responses';

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/consents')
export class NotificationEvidenceHttpController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post(':redecConsentId/notification-evidence')
  @HttpCode(201)
  @RequireScopes(Scopes.RUNTIME)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'recordNotificationEvidence',
    summary: 'Record evidence that the bank notified the data subject of the grant or the revocation',
    description:
      'The service does not send the notice: the bank sends it with contact data it holds, then records the evidence here. ' +
      'The evidence is anchored to the grant action or, for `revoke`, to the recorded revocation (also one kept with effective: false); ' +
      'the response returns that consentActionId and the internalConsentCode, neither of which may be sent (400, reasons `consent_action_id_is_server_assigned`, `internal_consent_code_is_server_generated`). ' +
      '`revoke` before a revocation is recorded is 409 `redec_consent_not_revoked`. ' +
      'sentAt may be neither before the notified grantedAt or revokedAt (400, reason `sent_at_before_notified_fact`) nor after the receipt (400, reason `sent_at_after_receipt`). ' +
      "recipientHash is a hash of the normalized address, never the address (a value with '@' is 400, reason `recipient_not_hashed`); contentSha256 is the hash of the exact message, which the bank keeps. " +
      'Append-only: each known delivery state (`sent`, then `delivered` or `bounced`) is a new record, listed in order in the evidence view. ' +
      'Idempotency-Key is required: an exact retry returns the first answer; the same key with another request is 422 IDEMPOTENCY_KEY_REUSED.',
  })
  @ApiCreatedResponse({ type: NotificationEvidenceResponseDto })
  @ProblemResponses({ 409: ['redec_consent_not_revoked', 'concurrent_change'] })
  record(@Param('redecConsentId', new ResourceIdPipe('consent')) redecConsentId: string, @Body() body: NotificationEvidenceRequestDto): Promise<NotificationEvidenceResponseDto> {
    // Anything but a consent id names no consent; it never reaches a stream name.
    return this.commandBus.execute<RecordNotificationEvidenceCommand, NotificationEvidenceAnswer>(new RecordNotificationEvidenceCommand(redecConsentId, body));
  }
}
