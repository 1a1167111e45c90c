import { ComplianceSource, DAY_MS, TemplateVersion, evaluateCompliance } from './consent-compliance';

const templateKey = 'redec-credit-evaluation';
const t0 = 1_763_800_000_000;
const day = (n: number): number => t0 + n * DAY_MS;

const version = (n: number, publishedDay: number, gracePeriodDays: number, overrides: Partial<TemplateVersion> = {}): TemplateVersion => ({
  configurationId: `cfg-${n}`,
  version: n,
  publishedAt: day(publishedDay),
  gracePeriodDays,
  scopeIds: ['redec-debt', 'redec-guarantees'],
  objectiveCodes: ['02', '03'],
  ...overrides,
});
const consent = (configurationVersion: number, overrides: Partial<ComplianceSource> = {}): ComplianceSource => ({
  consentId: `consent-${configurationVersion}`,
  templateKey,
  configurationVersion,
  active: true,
  scopeIds: ['redec-debt', 'redec-guarantees'],
  objectiveCodes: ['02', '03'],
  ...overrides,
});
const evaluate = (versions: TemplateVersion[], consents: ComplianceSource[], now: number) =>
  evaluateCompliance({ templateKey, versions, consents, now });

// v2 is published on day 10 with 30 days for holders of v1 to accept it.
const v1 = version(1, 0, 0);
const v2 = version(2, 10, 30);
const v2Pending = { version: 2, configurationId: 'cfg-2', publishedAt: day(10), effectiveAt: day(40) };

describe('the version in force', () => {
  it('is the highest version whose grace period has ended, from effectiveAt itself', () => {
    expect(evaluate([v1, v2], [], day(40) - 1).evaluatedVersion).toBe(1);
    expect(evaluate([v1, v2], [], day(40)).evaluatedVersion).toBe(2);
  });

  it('is the first version from its publication, whatever grace period it declares', () => {
    expect(evaluate([version(1, 0, 30)], [], day(1))).toEqual({
      templateKey,
      status: 'non_compliant',
      acceptedVersion: null,
      evaluatedVersion: 1,
      pendingRequirements: [{ code: 'acceptance_required', version: 1 }],
      pendingVersionChanges: [],
    });
  });

  it('does not depend on the order versions arrive in', () => {
    const versions = [version(4, 25, 30), version(2, 10, 0), version(3, 20, 30), version(1, 0, 0)];
    expect(evaluate(versions, [consent(2)], day(30))).toMatchObject({
      status: 'complies',
      evaluatedVersion: 2,
      pendingVersionChanges: [{ version: 3 }, { version: 4 }],
    });
  });

  it('needs at least one version (an unknown template)', () => {
    expect(() => evaluate([], [consent(1)], day(0))).toThrow(/no published version/);
  });
});

describe('which consents count', () => {
  it('ignores a consent of another template, even with the same scopes and objectives', () => {
    expect(evaluate([v1], [consent(1, { templateKey: 'marketing' })], day(1))).toMatchObject({
      status: 'non_compliant',
      acceptedVersion: null,
    });
  });

  it('ignores a revoked or expired consent', () => {
    expect(evaluate([v1], [consent(1, { active: false })], day(1))).toMatchObject({ status: 'non_compliant', acceptedVersion: null });
    expect(evaluate([v1, v2], [consent(1), consent(2, { active: false })], day(40))).toMatchObject({
      status: 'non_compliant',
      acceptedVersion: 1,
    });
  });
});

describe('acceptance', () => {
  it('requires accepting the version in force when there is no consent', () => {
    expect(evaluate([v1, v2], [], day(40))).toMatchObject({
      status: 'non_compliant',
      acceptedVersion: null,
      pendingRequirements: [{ code: 'acceptance_required', version: 2 }],
    });
  });

  it('takes the highest version among the counted consents as accepted', () => {
    expect(evaluate([v1, v2], [consent(2), consent(1)], day(40))).toMatchObject({ status: 'complies', acceptedVersion: 2 });
  });
});

describe('coverage of the version in force', () => {
  const wide = version(1, 0, 0, { scopeIds: ['redec-debt', 'redec-guarantees', 'redec-leasing'], objectiveCodes: ['02', '03'] });

  it('lists what a REDEC consent for a subset leaves out, scopes first, each in the version order', () => {
    expect(evaluate([wide], [consent(1, { scopeIds: ['redec-guarantees'], objectiveCodes: ['03'] })], day(1))).toMatchObject({
      status: 'partially_compliant',
      pendingRequirements: [
        { code: 'scope_not_accepted', scopeId: 'redec-debt' },
        { code: 'scope_not_accepted', scopeId: 'redec-leasing' },
        { code: 'objective_not_accepted', objectiveCode: '02' },
      ],
    });
  });

  it('complies when two consents of the version cover it together', () => {
    const consents = [
      consent(1, { consentId: 'a', scopeIds: ['redec-debt'], objectiveCodes: ['02'] }),
      consent(1, { consentId: 'b', scopeIds: ['redec-guarantees', 'redec-leasing'], objectiveCodes: ['03'] }),
    ];
    expect(evaluate([wide], consents, day(1))).toMatchObject({ status: 'complies', pendingRequirements: [] });
  });

  it('does not count what only a consent of an earlier version covered', () => {
    const consents = [consent(1), consent(2, { scopeIds: ['redec-debt'] })];
    expect(evaluate([v1, v2], consents, day(40))).toMatchObject({
      status: 'partially_compliant',
      pendingRequirements: [{ code: 'scope_not_accepted', scopeId: 'redec-guarantees' }],
    });
  });

  it('complies with a general consent by acceptance alone', () => {
    const general = version(1, 0, 0, { scopeIds: [], objectiveCodes: [] });
    expect(evaluate([general], [consent(1, { scopeIds: [], objectiveCodes: [] })], day(1))).toMatchObject({
      status: 'complies',
      pendingRequirements: [],
    });
  });
});

describe('a version in its grace period', () => {
  it('leaves a holder of the earlier version compliant, with the change pending until effectiveAt, then not', () => {
    expect(evaluate([v1, v2], [consent(1)], day(20))).toEqual({
      templateKey,
      status: 'complies',
      acceptedVersion: 1,
      evaluatedVersion: 1,
      pendingRequirements: [],
      pendingVersionChanges: [v2Pending],
    });
    expect(evaluate([v1, v2], [consent(1)], day(40))).toEqual({
      templateKey,
      status: 'non_compliant',
      acceptedVersion: 1,
      evaluatedVersion: 2,
      pendingRequirements: [{ code: 'acceptance_required', version: 2 }],
      pendingVersionChanges: [],
    });
  });

  it('is not pending for a holder who has already accepted it', () => {
    expect(evaluate([v1, v2], [consent(2)], day(20))).toMatchObject({
      status: 'complies',
      acceptedVersion: 2,
      evaluatedVersion: 1,
      pendingVersionChanges: [],
    });
  });

  it('drops a version still in grace once a later version is in force', () => {
    // v3 is published on day 20 without grace: v2's grace (to day 40) no longer gives anyone time.
    const result = evaluate([v1, v2, version(3, 20, 0)], [consent(1)], day(25));
    expect(result).toMatchObject({ status: 'non_compliant', evaluatedVersion: 3, pendingVersionChanges: [] });
  });
});
