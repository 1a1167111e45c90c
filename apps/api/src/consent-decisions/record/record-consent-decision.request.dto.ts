import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { MAX_DECISION_ITEMS } from '@ledger/consents';
import { EpochMs, IDENTITY, IssuedId, PRESENTED, PresentedText } from '../../dto-fields';
import { CaptureSubjectDto } from '../../redec/interactions/create/create-interaction.request.dto';
import { GrantRequestDto } from '../../redec/interactions/grant/grant.request.dto';

/** An item's REDEC grant: the grant's own fields but those the decision sends once (occurredAt, sourceSystem, sourceReference). */
export class DecisionRedecGrantDto extends OmitType(GrantRequestDto, ['occurredAt', 'sourceSystem', 'sourceReference'] as const) {}

export class DecisionItemDto {
  @ApiProperty({ format: 'uuid', description: 'A published configuration of this tenant, captured outside the service (`captureTiming: deferred_external`), once per decision.' })
  @IssuedId()
  configurationId!: string;

  @ApiProperty({ enum: ['accepted', 'declined'], description: 'A declined item records the decision only: no consent.' })
  @IsIn(['accepted', 'declined'])
  decision!: 'accepted' | 'declined';

  @ApiPropertyOptional({
    type: DecisionRedecGrantDto,
    description:
      'Required for an accepted REDEC configuration, refused otherwise: the grant as POST /v1/redec/consent-interactions/{id}/grant takes it (evidence, optional representation, executive, scopeIds, objectiveCodes, reportableObligation; never internalConsentCode).',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DecisionRedecGrantDto)
  redec?: DecisionRedecGrantDto;
}

/** docs/reference/consent-decisions.md, "Recording a decision". */
export class RecordConsentDecisionRequestDto extends CaptureSubjectDto {
  @ApiProperty({
    type: 'integer',
    description: "When the data subject decided (epoch ms): every accepted item's grantedAt. Not after the receipt; for a REDEC item, not further back than its profile allows (baseline 7 days).",
  })
  @EpochMs()
  occurredAt!: number;

  @ApiProperty({ description: `The system of the capture on the caller's platform; printed on the certificate of each REDEC item. ${PRESENTED} ${IDENTITY}`, maxLength: 100 })
  @PresentedText(100, { identity: true })
  sourceSystem!: string;

  @ApiProperty({ description: `The reference of the capture on the caller's platform; printed on the certificate of each REDEC item. ${PRESENTED} ${IDENTITY}`, maxLength: 200 })
  @PresentedText(200, { identity: true })
  sourceReference!: string;

  @ApiProperty({ type: [DecisionItemDto], minItems: 1, maxItems: MAX_DECISION_ITEMS, description: `One per configuration decided (1 to ${MAX_DECISION_ITEMS}, each configuration once): all are recorded, or none.` })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_DECISION_ITEMS)
  @ValidateNested({ each: true })
  @Type(() => DecisionItemDto)
  items!: DecisionItemDto[];
}
