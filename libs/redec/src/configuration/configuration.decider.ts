import { FieldError, validationError } from '@ledger/platform';
import { ProfileCatalog } from '../profiles/profile-catalog';
import { supportsChannel } from '../profiles/regulatory-profile';
import { ConfigurationContent, ConfigurationEvent } from './configuration.events';

/** One template of one tenant: how many versions it has. */
export interface ConfigurationTemplate {
  templateKey: string;
  latestVersion: number;
}

export function evolveConfigurationTemplate(state: ConfigurationTemplate | null, event: ConfigurationEvent): ConfigurationTemplate | null {
  switch (event.type) {
    case 'ConfigurationPublished':
      return { templateKey: event.data.templateKey, latestVersion: event.data.version };
    default: {
      const unknown: never = event.type;
      return unknown;
    }
  }
}

export interface PublishConfiguration {
  type: 'PublishConfiguration';
  data: { configurationId: string; content: ConfigurationContent };
  metadata: { now: number };
}

/**
 * Publishes the next version of the template: 1 for the first, then one more
 * than the latest. The shape of the content is the HTTP layer's to check;
 * the rules that need more than one field, or the profile catalog, are here.
 */
export function decidePublication(command: PublishConfiguration, state: ConfigurationTemplate | null, profiles: ProfileCatalog): ConfigurationEvent[] {
  const { configurationId, content } = command.data;
  const errors = checkConfigurationContent(content, profiles);
  if (errors.length > 0) throw validationError(`The configuration has ${errors.length} invalid field(s).`, { errors });
  return [
    {
      type: 'ConfigurationPublished',
      data: { ...content, configurationId, version: (state?.latestVersion ?? 0) + 1, publishedAt: command.metadata.now },
    },
  ];
}

function checkConfigurationContent(content: ConfigurationContent, profiles: ProfileCatalog): FieldError[] {
  const errors: FieldError[] = [];
  // The embedded flow is the service's own consent page (CONTRACT.md, embed sessions): a web page is a digital channel.
  if (content.captureTiming === 'embedded' && content.channel !== 'digital') errors.push({ field: 'captureTiming', reason: 'embedded_requires_digital_channel' });
  const redec = content.redec;
  if (!redec) return errors;
  redec.objectiveCodes.forEach((code, index) => {
    if (redec.objectiveCodes.indexOf(code) !== index) errors.push({ field: `redec.objectiveCodes[${index}]`, reason: 'duplicate_objective_code' });
  });
  redec.scopes.forEach((scope, index) => {
    if (redec.scopes.findIndex((s) => s.scopeId === scope.scopeId) !== index) errors.push({ field: `redec.scopes[${index}].scopeId`, reason: 'duplicate_scope_id' });
  });
  const profile = profiles.get(redec.regulatoryProfile);
  if (!profile) errors.push({ field: 'redec.regulatoryProfile', reason: 'unknown_regulatory_profile' });
  else if (!supportsChannel(profile, content.channel)) errors.push({ field: 'channel', reason: 'not_supported_by_regulatory_profile' });
  return errors;
}
