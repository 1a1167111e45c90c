import { ConfigurationPublished } from './configuration.events';

/** For tests: a published configuration version's facts, plain digital terms without a REDEC block. */
export const publishedVersion = (configurationId: string, version: number): ConfigurationPublished['data'] => ({
  configurationId,
  templateKey: 'redec-credit-evaluation',
  version,
  publishedAt: 1_763_800_000_000,
  title: 'Consulta',
  text: 'Autorizo...',
  channel: 'digital',
  captureTiming: 'deferred_external',
  redec: null,
  embed: null,
  gracePeriodDays: 0,
});
