import type { RecordedEvent } from '@ledger/event-store';
import type { DocumentProjection, IndexEntry, ReadModel } from '@ledger/projections';
import { ConfigurationPublished } from './configuration.events';

/** A published configuration version as the read model holds it: the published content, its tenant and its version. */
export interface ConfigurationDocument extends Readonly<ConfigurationPublished['data']> {
  tenantId: string;
}

export const CONFIGURATIONS_PROJECTION = 'configurations';
const BY_TEMPLATE = 'template';

export function configurationDocumentId(tenantId: string, configurationId: string): string {
  return `${tenantId}:${configurationId}`;
}

function templateIndexValue(tenantId: string, templateKey: string): string {
  return `${tenantId}:${templateKey}`;
}

/** What a version published before embed terms and grace periods existed has of them. */
const BEFORE_EMBED_AND_GRACE: Pick<ConfigurationDocument, 'embed' | 'gracePeriodDays'> = { embed: null, gracePeriodDays: 0 };

/**
 * Every published version, by id (what an interaction links to) and by
 * template (what compliance evaluates against: the latest version). A version
 * never changes, so one event makes one document and nothing updates it.
 */
export const configurationsProjection: DocumentProjection<ConfigurationDocument> = {
  name: CONFIGURATIONS_PROJECTION,
  // 2: versions published before embed terms and grace periods existed read as having none.
  // 3: indexes are sorted sets (decision 0021). 4: ids and index values stored with their UUIDs compacted (decision 0081).
  version: 4,
  route(event: RecordedEvent): string[] {
    if (event.type !== 'ConfigurationPublished' || !event.metadata.tenantId) return [];
    return [configurationDocumentId(event.metadata.tenantId, (event.data as ConfigurationPublished['data']).configurationId)];
  },
  evolve(document: ConfigurationDocument | null, recorded: RecordedEvent): ConfigurationDocument | null {
    const event = recorded as unknown as ConfigurationPublished;
    return event.type === 'ConfigurationPublished' ? { tenantId: recorded.metadata.tenantId!, ...BEFORE_EMBED_AND_GRACE, ...event.data } : document;
  },
  indexes(document: ConfigurationDocument): IndexEntry[] {
    return [{ index: BY_TEMPLATE, value: templateIndexValue(document.tenantId, document.templateKey) }];
  },
};

/** The configuration version, or null when the tenant has none with this id (another tenant's id included). */
export function readConfiguration(readModel: ReadModel, tenantId: string, configurationId: string): Promise<ConfigurationDocument | null> {
  return readModel.getDocument<ConfigurationDocument>(CONFIGURATIONS_PROJECTION, configurationDocumentId(tenantId, configurationId));
}

/** Every published version of a template of the tenant, oldest first; empty for an unknown key. */
export async function readConfigurationVersions(readModel: ReadModel, tenantId: string, templateKey: string): Promise<ConfigurationDocument[]> {
  const documents = await readModel.findByIndex<ConfigurationDocument>(CONFIGURATIONS_PROJECTION, BY_TEMPLATE, templateIndexValue(tenantId, templateKey));
  return documents.sort((a, b) => a.version - b.version);
}
