import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { CompletedConsentDecision } from '@ledger/consents';

export class ConsentDecisionItemResultDto {
  @ApiProperty({ format: 'uuid' }) configurationId!: string;
  @ApiProperty({ enum: ['accepted', 'declined'] }) decision!: 'accepted' | 'declined';
  @ApiPropertyOptional({ format: 'uuid', description: 'An accepted REDEC configuration: the consent granted (GET /v1/redec/consents/{redecConsentId}).' }) redecConsentId?: string;
  @ApiPropertyOptional({ description: 'An accepted REDEC configuration: its internal code, 20 characters of 0-9A-Z.' }) internalConsentCode?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'An accepted general configuration: the consent granted (GET /v1/consents/{consentId}).' }) consentId?: string;
}

/** A Multi-Consent decision: one item per configuration decided, in the order sent; a declined item names no consent. */
export class ConsentDecisionDto {
  @ApiProperty({ format: 'uuid' }) decisionId!: string;
  @ApiProperty({ format: 'uuid' }) customerId!: string;
  @ApiProperty({ type: 'integer', description: 'When the data subject decided: the grantedAt of every accepted item.' }) occurredAt!: number;
  @ApiProperty({ type: 'integer', description: 'When the service received the decision.' }) recordedAt!: number;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'The embed session the decision was taken on; null for one sent to POST /v1/consent-decisions.' }) embedSessionId!: string | null;
  @ApiProperty({ type: [ConsentDecisionItemResultDto] }) items!: ConsentDecisionItemResultDto[];
}

export function consentDecisionView({ decision, consents }: CompletedConsentDecision): ConsentDecisionDto {
  return {
    decisionId: decision.decisionId,
    customerId: decision.customerId,
    occurredAt: decision.occurredAt,
    recordedAt: decision.recordedAt,
    embedSessionId: decision.embedSessionId,
    items: decision.items.map((item, index) => {
      const consent = consents[index];
      const recorded =
        consent === null ? {} : consent.kind === 'redec' ? { redecConsentId: consent.redecConsentId, internalConsentCode: consent.internalConsentCode } : { consentId: consent.consentId };
      return { configurationId: item.configurationId, decision: item.decision, ...recorded };
    }),
  };
}
