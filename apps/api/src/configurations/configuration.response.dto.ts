import { ApiProperty } from '@nestjs/swagger';
import { CAPTURE_TIMINGS, CHANNELS } from '@ledger/redec';
import type { ConfigurationContent, ConfigurationPublished } from '@ledger/redec';
import { EmbedTermsDto, RedecTermsDto } from './publish/publish-configuration.request.dto';

/** One published configuration version, as POST answers it and GET reads it back. */
export class ConfigurationResponseDto {
  @ApiProperty({ description: 'Id of this version; an interaction links to it. Another tenant never finds it.' }) configurationId!: string;
  @ApiProperty({ description: 'The template this is a version of.' }) templateKey!: string;
  @ApiProperty({ description: 'Version within the template key and tenant: 1, 2, 3… A published version never changes.', type: 'integer', minimum: 1 }) version!: number;
  @ApiProperty({ description: 'When it was published (epoch ms, service clock).', type: 'integer' }) publishedAt!: number;
  @ApiProperty({ description: 'Title as presented to the data subject.' }) title!: string;
  @ApiProperty({ description: 'The consent text as presented to the data subject.' }) text!: string;
  @ApiProperty({ description: 'The capture channel.', enum: CHANNELS }) channel!: ConfigurationContent['channel'];
  @ApiProperty({ description: 'How consent is captured: `deferred_external` or `embedded`.', enum: CAPTURE_TIMINGS }) captureTiming!: ConfigurationContent['captureTiming'];
  @ApiProperty({ description: 'The REDEC terms as published, or null for a general (non-REDEC) consent.', type: RedecTermsDto, nullable: true })
  redec!: RedecTermsDto | null;
  @ApiProperty({ description: 'Where the consent page of an embedded configuration may be framed and return to, or null.', type: EmbedTermsDto, nullable: true })
  embed!: EmbedTermsDto | null;
  @ApiProperty({ description: 'Days holders of an earlier version keep complying after this version is published.', type: 'integer', minimum: 0 }) gracePeriodDays!: number;
}

/** The same members in the same order whether answered at publication or read back; the tenant is never shown. */
export function configurationResponse(configuration: ConfigurationPublished['data']): ConfigurationResponseDto {
  return {
    configurationId: configuration.configurationId,
    templateKey: configuration.templateKey,
    version: configuration.version,
    publishedAt: configuration.publishedAt,
    title: configuration.title,
    text: configuration.text,
    channel: configuration.channel,
    captureTiming: configuration.captureTiming,
    redec: configuration.redec,
    embed: configuration.embed,
    gracePeriodDays: configuration.gracePeriodDays,
  };
}
