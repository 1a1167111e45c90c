import { randomUUID } from 'node:crypto';
import { EventStore, WrongExpectedVersionError } from '@ledger/event-store';
import { CommandContext, loadAggregate, toNewEvent } from '@ledger/ledger';
import { conflict } from '@ledger/platform';
import { ProfileCatalog } from '../profiles/profile-catalog';
import { redecStreams } from '../streams';
import { ConfigurationTemplate, decidePublication, evolveConfigurationTemplate } from './configuration.decider';
import { ConfigurationContent, ConfigurationPublished } from './configuration.events';

export interface PublishConfigurationResult {
  configuration: ConfigurationPublished['data'];
  /** Global position of the publication, for read-your-writes. */
  position: number;
}

/**
 * Each lost race means another publication of the template committed, so a
 * publication waits behind at most as many as run at once; past this many
 * the template is being hammered and the client is told to retry.
 */
const MAX_ATTEMPTS = 50;

/**
 * Publishes the next version of a template. Two concurrent publications load
 * the same latest version; the second append fails on the expected revision
 * and is decided again on the fresh stream, so they get consecutive versions.
 */
export async function publishConfiguration(
  store: EventStore,
  profiles: ProfileCatalog,
  content: ConfigurationContent,
  context: CommandContext & { tenantId: string },
): Promise<PublishConfigurationResult> {
  const streamId = redecStreams.configurationTemplate(context.tenantId, content.templateKey);
  const configurationId = randomUUID();
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const { state, expectedRevision } = await loadAggregate<ConfigurationTemplate, ConfigurationPublished>(store, streamId, evolveConfigurationTemplate);
    const [published] = decidePublication({ type: 'PublishConfiguration', data: { configurationId, content }, metadata: { now: context.now } }, state, profiles);
    try {
      const { position } = await store.append(streamId, [toNewEvent(published, context)], expectedRevision);
      return { configuration: published.data, position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) continue;
      throw error;
    }
  }
  throw conflict('configuration_publication_contended', 'Too many publications of this template at once; retry shortly.');
}
