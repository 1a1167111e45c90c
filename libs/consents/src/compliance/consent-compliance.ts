// Whether a customer's consents satisfy the version of a configuration template
// in force. Pure: the caller loads the versions and the consents and passes the
// clock, so every rule below is table-testable.

export type ComplianceStatus = 'complies' | 'partially_compliant' | 'non_compliant';

/** One published version of a configuration template, as compliance needs it. */
export interface TemplateVersion {
  configurationId: string;
  version: number;
  publishedAt: number; // epoch ms
  /** Days holders of an earlier version have to accept this one; 0 = in force at publication. */
  gracePeriodDays: number;
  /** What a consent must cover: the REDEC scopeIds and objectiveCodes of the version; both empty for a general consent. */
  scopeIds: string[];
  objectiveCodes: string[];
}

/** One consent of the customer (REDEC or general), reduced to what compliance reads. */
export interface ComplianceSource {
  consentId: string;
  templateKey: string;
  configurationVersion: number;
  /** Enables processing now: REDEC `granted`/`extended`, general `granted`. False when revoked or expired. */
  active: boolean;
  scopeIds: string[];
  objectiveCodes: string[];
}

export type PendingRequirement =
  | { code: 'acceptance_required'; version: number }
  | { code: 'scope_not_accepted'; scopeId: string }
  | { code: 'objective_not_accepted'; objectiveCode: string };

export interface PendingVersionChange {
  version: number;
  configurationId: string;
  publishedAt: number;
  effectiveAt: number;
}

export interface ConsentCompliance {
  templateKey: string;
  status: ComplianceStatus;
  acceptedVersion: number | null;
  evaluatedVersion: number;
  pendingRequirements: PendingRequirement[];
  pendingVersionChanges: PendingVersionChange[];
}

export const DAY_MS = 86_400_000;

export function evaluateCompliance(input: {
  templateKey: string;
  versions: readonly TemplateVersion[];
  consents: readonly ComplianceSource[];
  now: number;
}): ConsentCompliance {
  const { templateKey, now } = input;
  if (input.versions.length === 0) throw new Error(`Template ${templateKey} has no published version.`);
  const versions = [...input.versions].sort((a, b) => a.version - b.version);
  const first = versions[0];
  // Nobody holds an earlier version to be given time, so the first is in force as published.
  const effectiveAt = (v: TemplateVersion): number => (v.version === first.version ? v.publishedAt : v.publishedAt + v.gracePeriodDays * DAY_MS);
  // Before the first version's publication nothing is in force; the first is still what a consent would have to accept.
  const evaluated = versions.filter((v) => effectiveAt(v) <= now).at(-1) ?? first;

  // Another template covering the same scopes is a different consent, and a revoked or expired one enables nothing.
  const counted = input.consents.filter((c) => c.templateKey === templateKey && c.active);
  const acceptedVersion = counted.length === 0 ? null : Math.max(...counted.map((c) => c.configurationVersion));

  const pendingVersionChanges = versions
    // A version in grace but superseded by a later one already in force is no longer anyone's next step.
    .filter((v) => effectiveAt(v) > now && v.version > evaluated.version && v.version > (acceptedVersion ?? 0))
    .map((v) => ({ version: v.version, configurationId: v.configurationId, publishedAt: v.publishedAt, effectiveAt: effectiveAt(v) }));
  const result = { templateKey, acceptedVersion, evaluatedVersion: evaluated.version, pendingVersionChanges };

  if (acceptedVersion === null || acceptedVersion < evaluated.version) {
    return { ...result, status: 'non_compliant', pendingRequirements: [{ code: 'acceptance_required', version: evaluated.version }] };
  }

  // Several consents of a current version may each cover part of it (REDEC grants a subset of the scopes).
  const current = counted.filter((c) => c.configurationVersion >= evaluated.version);
  const acceptedScopes = new Set(current.flatMap((c) => c.scopeIds));
  const acceptedObjectives = new Set(current.flatMap((c) => c.objectiveCodes));
  const pendingRequirements: PendingRequirement[] = [
    ...evaluated.scopeIds.filter((s) => !acceptedScopes.has(s)).map((scopeId) => ({ code: 'scope_not_accepted' as const, scopeId })),
    ...evaluated.objectiveCodes
      .filter((o) => !acceptedObjectives.has(o))
      .map((objectiveCode) => ({ code: 'objective_not_accepted' as const, objectiveCode })),
  ];
  return { ...result, status: pendingRequirements.length > 0 ? 'partially_compliant' : 'complies', pendingRequirements };
}
