import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CompletedConsentDecision, ConsentDecisionRequest } from '@ledger/consents';
import { CurrentPrincipal, EvidenceBytes, Idempotent, RequireScopes, assertScope } from '@ledger/http';
import { DomainError, Principal, Scopes, refusalOfPart } from '@ledger/platform';
import { customerReference } from '../../redec/interactions/create/create-interaction.http.controller';
import { toGrantTerms } from '../../redec/interactions/grant/grant.http.controller';
import { ConsentDecisionDto, consentDecisionView } from '../consent-decision.response.dto';
import { RecordConsentDecisionCommand } from './record-consent-decision.command';
import { RecordConsentDecisionRequestDto } from './record-consent-decision.request.dto';
import { ProblemResponses } from '../../openapi/problem-responses';

@ApiTags('consents')
@ApiBearerAuth()
@Controller('v1/consent-decisions')
export class RecordConsentDecisionHttpController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post()
  @HttpCode(201)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: true })
  @EvidenceBytes()
  @ApiOperation({
    operationId: 'recordConsentDecision',
    summary: "Record the data subject's decisions on several configurations at once (Multi-Consent decision): all items or none",
    description:
      'The customer by `customerId`, or resolved inline (`userReference` + `identifiers`) as for an interaction; its identifiers must satisfy the channel and profile of every REDEC item. ' +
      'Each accepted REDEC item becomes a grant with the rules of POST /v1/redec/consent-interactions/{id}/grant (its own internalConsentCode, the initial window from occurredAt, its artifact, the `redec.notification.required` webhook); ' +
      'each accepted general item a general consent, whose evidence is this decision; a declined item records only the decision. ' +
      'Every item is checked before anything is recorded: a refusal of any item records nothing and names the item’s field (e.g. `items[1].redec.evidence.kind`). ' +
      'Idempotency-Key required: it names the decision, so an exact retry answers the same, also after a failure between the decision and its consents (the retry records what is missing). ' +
      'Errors: 400 VALIDATION_ERROR, 404 NOT_FOUND (customer, or a configuration of another tenant, named in `errors`), 409 for a configuration that cannot be decided here (e.g. `redec_capture_is_embedded`), 409 CUSTOMER_IDENTITY_CONFLICT. ' +
      'Evidence bytes travel base64 in `contentBase64`: the body may be up to 16 MiB here (64 KiB elsewhere); a larger one is 413 `PAYLOAD_TOO_LARGE`. While the service holds as many bodies as its memory budget allows, or your tenant its share, 503 `SERVICE_BUSY` with `Retry-After` before the body is read: send the same request again after it (send `Expect: 100-continue` to be refused before the body is sent).',
  })
  @ApiCreatedResponse({ type: ConsentDecisionDto })
  @ProblemResponses({
    404: ['NOT_FOUND'],
    409: [
      'CUSTOMER_IDENTITY_CONFLICT',
      'redec_capture_is_embedded',
      'CUSTOMER_RESOLUTION_IN_PROGRESS',
      'customer_data_erased',
      'concurrent_change',
      'regulatory_profile_unavailable',
      'redec_configuration_required',
      'general_configuration_required',
      'capture_is_embedded',
      'configuration_not_embedded',
      'consent_interaction_already_granted',
      'redec_interaction_already_granted',
      'internal_consent_code_unavailable',
    ],
    503: ['banking_calendar_out_of_range', 'SERVICE_BUSY'],
  })
  async record(@Body() body: RecordConsentDecisionRequestDto, @CurrentPrincipal() principal: Principal): Promise<ConsentDecisionDto> {
    if (body.identifiers?.some((i) => i.verification)) assertScope(principal, Scopes.IDENTITY_ASSERT);
    const { occurredAt, sourceSystem, sourceReference } = body;
    const request: ConsentDecisionRequest = {
      customer: customerReference(body),
      dataSubjectName: body.dataSubjectName ?? null,
      occurredAt,
      sourceSystem,
      sourceReference,
      items: body.items.map(({ configurationId, decision, redec }, index) => ({ configurationId, decision, redec: redec && itemGrantTerms(redec, `items[${index}].redec`) })),
    };
    return consentDecisionView(await this.commandBus.execute<RecordConsentDecisionCommand, CompletedConsentDecision>(new RecordConsentDecisionCommand(request)));
  }
}

function itemGrantTerms(redec: NonNullable<RecordConsentDecisionRequestDto['items'][number]['redec']>, at: string): ReturnType<typeof toGrantTerms> {
  try {
    return toGrantTerms(redec);
  } catch (error) {
    if (error instanceof DomainError) throw refusalOfPart(error, at);
    throw error;
  }
}
