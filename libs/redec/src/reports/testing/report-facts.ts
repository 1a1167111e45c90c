import { bankingCalendar } from '../../calendar/banking-calendar';
import { initialAccessValidUntil } from '../../calendar/initial-access';
import { endOfLocalDay, startOfLocalDay } from '../../calendar/local-time';
import { ConsentGranted } from '../../consent/consent.events';
import { facts, grant } from '../../consent/testing/consent-fixtures';
import { AccessReportFacts, ConsentReportFacts, RecordedConsentFact, ReportPeriod } from '../report-records';

/**
 * A fixed set of facts around Easter 2026 in Chile, for the golden files:
 * week A (Saturday 28 March to Good Friday 3 April, a holiday) and week B
 * (Holy Saturday 4 April, the night the clocks go back from -03 to -04, to
 * Friday 10 April).
 */
export const calendar = bankingCalendar();
const at = (local: string) => Date.parse(local);

export const weekA: ReportPeriod = { periodStart: startOfLocalDay('2026-03-28'), periodEnd: endOfLocalDay('2026-04-03') };
export const weekB: ReportPeriod = { periodStart: startOfLocalDay('2026-04-04'), periodEnd: endOfLocalDay('2026-04-10') };
export const institutionCode = '0000000001';

interface ConsentSpec {
  code: string;
  grantedAt: number;
  recordedAt?: number;
  subjectRut: string;
  executiveRut?: string;
  channel?: ConsentGranted['data']['channel'];
  objectiveCodes?: string[];
  later?: RecordedConsentFact[];
}

function consent(spec: ConsentSpec): ConsentReportFacts {
  const recordedAt = spec.recordedAt ?? spec.grantedAt + 400;
  const granted: ConsentGranted = {
    type: 'ConsentGranted',
    data: {
      ...grant.data,
      redecConsentId: `con-${spec.code}`,
      internalConsentCode: spec.code,
      channel: spec.channel ?? 'digital',
      mediumCode: spec.channel === 'phone' ? '2' : '1',
      objectiveCodes: spec.objectiveCodes ?? ['02'],
      grantedAt: spec.grantedAt,
      recordedAt,
      initialAccessValidUntil: initialAccessValidUntil(spec.grantedAt, calendar),
    },
  };
  return { facts: [{ event: granted, recordedAt }, ...(spec.later ?? [])], subjectRut: spec.subjectRut, executiveRut: spec.executiveRut ?? null };
}

const revokedAt = at('2026-04-07T16:20:00-04:00');
const creditGrantedAt = at('2026-04-08T12:00:00-04:00');

export const consents: ConsentReportFacts[] = [
  // Either side of the week boundary, one second apart.
  consent({ code: 'WB000000000000000001', grantedAt: at('2026-04-03T23:59:59-03:00'), subjectRut: '11111111-1' }),
  consent({ code: 'WB000000000000000002', grantedAt: at('2026-04-04T00:00:00-03:00'), subjectRut: '15234567-4' }),
  // Captured by phone by an executive of the bank.
  consent({ code: 'EX000000000000000003', grantedAt: at('2026-03-31T11:15:00-03:00'), subjectRut: '9876543-3', executiveRut: '7654321-6', channel: 'phone' }),
  // Captured in week A, revoked in week B: a correction line in B.
  consent({
    code: 'RV000000000000000004',
    grantedAt: at('2026-03-30T09:00:00-03:00'),
    subjectRut: '22333444-K',
    objectiveCodes: ['03', '02'],
    later: [{ event: facts.revocation(revokedAt, true), recordedAt: revokedAt + 300 }],
  }),
  // Captured in week A, extended in week B: no end known any more.
  consent({
    code: 'XT000000000000000005',
    grantedAt: at('2026-03-30T10:00:00-03:00'),
    subjectRut: '5126663-3',
    later: [{ event: facts.extension('ext-1', 'op-1', creditGrantedAt), recordedAt: creditGrantedAt + 2000 }],
  }),
  // 23:30 on Holy Saturday happens twice: before and after the clocks go back.
  consent({ code: 'DS000000000000000006', grantedAt: at('2026-04-04T23:30:00-03:00'), subjectRut: '30686957-4' }),
  consent({ code: 'DS000000000000000007', grantedAt: at('2026-04-04T23:30:00-04:00'), subjectRut: '18765432-7' }),
  // Granted in week A, recorded in week B (deferred capture): reported in B only.
  consent({ code: 'LT000000000000000008', grantedAt: at('2026-04-02T15:00:00-03:00'), recordedAt: at('2026-04-06T10:00:00-04:00'), subjectRut: '6543210-2' }),
];

function access(id: string, code: string, accessedAt: number, mandataryRut: string | null = null, recordedAt = accessedAt + 1500): AccessReportFacts {
  return { redecAccessId: id, internalConsentCode: code, accessedAt, recordedAt, mandataryRut };
}

export const accesses: AccessReportFacts[] = [
  // Good Friday: a holiday, inside business hours.
  access('acc-1', 'EX000000000000000003', at('2026-04-03T10:00:00-03:00')),
  // A banking day, after hours, by a mandatary.
  access('acc-2', 'RV000000000000000004', at('2026-03-30T20:15:00-03:00'), '12345678-5'),
  // The second 23:30 of Holy Saturday.
  access('acc-3', 'DS000000000000000006', at('2026-04-04T23:30:00-04:00')),
  // 09:00 sharp is inside business hours.
  access('acc-4', 'XT000000000000000005', at('2026-04-07T09:00:00-04:00'), '12345678-5'),
  // Accessed on Good Friday in week A, confirmed in week B: reported in B.
  access('acc-5', 'WB000000000000000001', at('2026-04-03T17:59:59-03:00'), null, at('2026-04-04T08:00:00-03:00')),
];
