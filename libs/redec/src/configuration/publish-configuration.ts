import { randomUUID } from 'node:crypto';
import { EventStore } from '@ledger/event-store';
import { CommandContext, Decision, runCommand } from '@ledger/ledger';
import { ProfileCatalog } from '../profiles/profile-catalog';
import { redecStreams } from '../streams';
import { decidePublication, evolveConfigurationTemplate } from './configuration.decider';
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
const PUBLICATION_ATTEMPTS = 50;

/**
 * Publishes the next version of a template, through the one command path.
 * Two concurrent publications read the same latest version; the second
 * append fails on the expected revision and is decided again on the fresh
 * stream, so they get consecutive versions.
 */
export async function publishConfiguration(
  store: EventStore,
  profiles: ProfileCatalog,
  content: ConfigurationContent,
  context: CommandContext & { tenantId: string },
): Promise<PublishConfigurationResult> {
  const streamId = redecStreams.configurationTemplate(context.tenantId, content.templateKey);
  const configurationId = randomUUID();
  const { result, position } = await runCommand(
    store,
    context,
    async (reads): Promise<Decision<ConfigurationPublished['data']>> => {
      const template = await reads.fold(streamId, evolveConfigurationTemplate);
      const [published] = decidePublication({ type: 'PublishConfiguration', data: { configurationId, content }, metadata: { now: context.now } }, template, profiles);
      return { record: { streamId, facts: [published] }, answer: published.data };
    },
    { attempts: PUBLICATION_ATTEMPTS },
  );
  return { configuration: result, position: position! };
}
