import type { CaptureTiming, Channel, ConsentScope } from '../consent/consent.events';

/**
 * What a REDEC configuration fixes for every consent captured under it:
 * purpose (`finalityCode`), objectives, scopes, targets, the system the
 * reportable obligations come from, and the Regulatory Profile that judges
 * the interaction's identifiers and the grant's evidence and timing.
 */
export interface RedecTerms {
  finalityCode: string;
  /** Two-digit objective codes, unique. */
  objectiveCodes: string[];
  /** Unique by scopeId. */
  scopes: ConsentScope[];
  targets: string[];
  obligationSourceSystem: string;
  regulatoryProfile: string;
}

export const CAPTURE_TIMINGS = ['deferred_external', 'embedded'] as const satisfies readonly CaptureTiming[];

/**
 * Where the service's consent page of an embedded configuration may be
 * framed, and where it may send the data subject back: origins
 * (`scheme://host[:port]`) of the integrator's sites.
 */
export interface EmbedTerms {
  allowedOrigins: string[];
}

/** What the integrator publishes; `redec` is null for a general (non-REDEC) consent. */
export interface ConfigurationContent {
  templateKey: string;
  title: string;
  text: string;
  channel: Channel;
  captureTiming: CaptureTiming;
  redec: RedecTerms | null;
  /** Only for `captureTiming: embedded`; null means the page may not be framed at all. */
  embed: EmbedTerms | null;
  /**
   * Days during which holders of an earlier version still comply, while this
   * version is a pending change for them (0: in force at publication).
   */
  gracePeriodDays: number;
}

/** The next version of a template, published. Immutable: a change is a new version with a new configurationId. */
export interface ConfigurationPublished {
  type: 'ConfigurationPublished';
  data: ConfigurationContent & { configurationId: string; version: number; publishedAt: number };
}

export type ConfigurationEvent = ConfigurationPublished;
