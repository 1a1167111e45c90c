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
  // A grace period lets holders of the previous version keep complying; the first version has no holders to wait for.
  if (content.gracePeriodDays > 0 && !state) errors.push({ field: 'gracePeriodDays', reason: 'grace_period_requires_earlier_version' });
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
  // The embedded flow is the service's own consent page (docs/reference/embed-sessions.md): a web page is a digital channel.
  if (content.captureTiming === 'embedded' && content.channel !== 'digital') errors.push({ field: 'captureTiming', reason: 'embedded_requires_digital_channel' });
  if (content.embed) {
    if (content.captureTiming !== 'embedded') errors.push({ field: 'embed', reason: 'embed_requires_embedded_capture' });
    content.embed.allowedOrigins.forEach((origin, index) => {
      const field = `embed.allowedOrigins[${index}]`;
      if (!isEmbedOrigin(origin)) errors.push({ field, reason: 'invalid_origin' });
      else if (content.embed!.allowedOrigins.indexOf(origin) !== index) errors.push({ field, reason: 'duplicate_origin' });
    });
  }
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

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const ORIGIN_SHAPE = /^https?:\/\/([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(:[0-9]{1,5})?$/;

/**
 * A bare origin exactly as a browser serializes it (`https://bank.example`,
 * no path, no trailing slash, lower case): it is written into the page's
 * Content-Security-Policy and compared with return URLs. https only, but for
 * a loopback host, where a developer's own machine runs the integrator's site.
 */
export function isEmbedOrigin(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  // The URL parser lets `*`, `;` and quotes through in host names; none belongs in a CSP source.
  if (url.origin !== value || !ORIGIN_SHAPE.test(value)) return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
}
