import { refusalOf } from '@ledger/platform/testing';
import { BASELINE_PROFILE, ProfileCatalog } from '../profiles/profile-catalog';
import { ConfigurationTemplate, PublishConfiguration, decidePublication, evolveConfigurationTemplate } from './configuration.decider';
import { ConfigurationContent, ConfigurationEvent, RedecTerms } from './configuration.events';

const now = 1_763_800_000_000;
const redec: RedecTerms = {
  finalityCode: '2',
  objectiveCodes: ['02', '03'],
  scopes: [{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }],
  targets: ['Banco Ejemplo'],
  obligationSourceSystem: 'core-loans',
  regulatoryProfile: 'baseline',
};
const content = (overrides: Partial<ConfigurationContent> = {}): ConfigurationContent => ({
  templateKey: 'redec-credit-evaluation',
  title: 'Consulta al Registro de Deuda Consolidada',
  text: 'Autorizo...',
  channel: 'digital',
  captureTiming: 'deferred_external',
  redec,
  embed: null,
  gracePeriodDays: 0,
  ...overrides,
});
const profiles = new ProfileCatalog([{ ...BASELINE_PROFILE, id: 'digital-only', channels: { digital: BASELINE_PROFILE.channels.digital } }]);

const published = (version: number, configurationId = `cfg-${version}`): ConfigurationEvent => ({
  type: 'ConfigurationPublished',
  data: { ...content(), configurationId, version, publishedAt: now - 1000 * (10 - version) },
});

function given(events: ConfigurationEvent[]): ConfigurationTemplate | null {
  return events.reduce<ConfigurationTemplate | null>(evolveConfigurationTemplate, null);
}
function when(state: ConfigurationTemplate | null, published: ConfigurationContent = content(), configurationId = 'cfg-new'): ConfigurationEvent[] {
  const command: PublishConfiguration = { type: 'PublishConfiguration', data: { configurationId, content: published }, metadata: { now } };
  return decidePublication(command, state, profiles);
}
describe('configuration publication', () => {
  it('publishes version 1 of a new template, with everything that was sent', () => {
    expect(when(given([]))).toEqual([
      { type: 'ConfigurationPublished', data: { ...content(), configurationId: 'cfg-new', version: 1, publishedAt: now } },
    ]);
  });

  it('publishes one more than the latest version', () => {
    expect(when(given([published(1), published(2)]))).toMatchObject([{ data: { configurationId: 'cfg-new', version: 3 } }]);
  });

  it('publishes a general consent without REDEC terms', () => {
    expect(when(null, content({ redec: null, channel: 'phone' }))).toMatchObject([{ data: { redec: null, channel: 'phone', version: 1 } }]);
  });

  it('refuses repeated objective codes and scopeIds, field by field', () => {
    const error = refusalOf(() =>
      when(null, content({ redec: { ...redec, objectiveCodes: ['02', '03', '02'], scopes: [...redec.scopes, { scopeId: 'redec-debt', dataCategoryCode: 'other' }] } })),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.errors).toEqual([
      { field: 'redec.objectiveCodes[2]', reason: 'duplicate_objective_code' },
      { field: 'redec.scopes[1].scopeId', reason: 'duplicate_scope_id' },
    ]);
  });

  it('needs a Regulatory Profile the catalog knows, that supports the channel', () => {
    expect(refusalOf(() => when(null, content({ redec: { ...redec, regulatoryProfile: 'nope' } }))).errors).toEqual([
      { field: 'redec.regulatoryProfile', reason: 'unknown_regulatory_profile' },
    ]);
    expect(refusalOf(() => when(null, content({ channel: 'phone', redec: { ...redec, regulatoryProfile: 'digital-only' } }))).errors).toEqual([
      { field: 'channel', reason: 'not_supported_by_regulatory_profile' },
    ]);
    expect(when(null, content({ channel: 'phone' }))).toHaveLength(1);
  });

  it('captures embedded consent only on the digital channel', () => {
    expect(refusalOf(() => when(null, content({ captureTiming: 'embedded', channel: 'in_person' }))).errors).toEqual([
      { field: 'captureTiming', reason: 'embedded_requires_digital_channel' },
    ]);
    expect(when(null, content({ captureTiming: 'embedded' }))).toMatchObject([{ data: { captureTiming: 'embedded' } }]);
  });

  it('frames the consent page only for embedded capture, from bare https (or loopback http) origins, each once', () => {
    const embedded = (allowedOrigins: string[]) => content({ captureTiming: 'embedded', embed: { allowedOrigins } });
    expect(when(null, embedded(['https://bank.example', 'http://localhost:8080']))).toMatchObject([{ data: { embed: { allowedOrigins: ['https://bank.example', 'http://localhost:8080'] } } }]);
    expect(refusalOf(() => when(null, content({ embed: { allowedOrigins: ['https://bank.example'] } }))).errors).toEqual([{ field: 'embed', reason: 'embed_requires_embedded_capture' }]);
    expect(
      refusalOf(() => when(null, embedded(['https://bank.example/', 'http://bank.example', 'https://BANK.example', 'https://bank.example', "https://a'b.example", 'https://bank.example', 'https://*.bank.example']))).errors,
    ).toEqual([
      { field: 'embed.allowedOrigins[0]', reason: 'invalid_origin' },
      { field: 'embed.allowedOrigins[1]', reason: 'invalid_origin' },
      { field: 'embed.allowedOrigins[2]', reason: 'invalid_origin' },
      { field: 'embed.allowedOrigins[4]', reason: 'invalid_origin' },
      { field: 'embed.allowedOrigins[5]', reason: 'duplicate_origin' },
      { field: 'embed.allowedOrigins[6]', reason: 'invalid_origin' },
    ]);
  });

  it('gives a grace period only to a version that has an earlier one', () => {
    expect(refusalOf(() => when(null, content({ gracePeriodDays: 30 }))).errors).toEqual([{ field: 'gracePeriodDays', reason: 'grace_period_requires_earlier_version' }]);
    expect(when(given([published(1)]), content({ gracePeriodDays: 30 }))).toMatchObject([{ data: { version: 2, gracePeriodDays: 30 } }]);
  });
});
