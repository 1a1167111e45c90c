import { ConsentEvent } from './consent.events';
import { addYears, deriveStatus, regulatoryRepresentation } from './regulatory-representation';
import { facts, given, grantedAt, state, validUntil } from './testing/consent-fixtures';

describe('regulatory representation', () => {
  it('shows every field of the regulatory representation from the grant, and not the request hash', () => {
    expect(regulatoryRepresentation(state, grantedAt + 1)).toEqual({
      redecConsentId: 'con-1',
      internalConsentCode: 'A1B2C3D4E5F6G7H8I9J0',
      customerId: 'cus-1',
      status: 'granted',
      channel: 'digital',
      captureTiming: 'deferred_external',
      grantedAt,
      initialAccessValidUntil: validUntil,
      finalityCode: '2',
      mediumCode: '1',
      objectiveCodes: ['02'],
      revocation: null,
      creditExtensions: [],
      artifactStatus: 'pending',
      retentionUntil: null,
      retentionBasis: null,
    });
    expect(JSON.stringify(state)).not.toContain('grantRequestSha256');
  });

  it('is granted through the last millisecond of the window and expired after it, without any job', () => {
    expect(regulatoryRepresentation(state, validUntil).status).toBe('granted');
    const expired = regulatoryRepresentation(state, validUntil + 1);
    expect(expired).toMatchObject({ status: 'expired', retentionBasis: 'loss_of_validity', retentionUntil: Date.UTC(2031, 11, 12, 2, 59, 59, 999) });
  });

  it('adds calendar years, keeping the end of February', () => {
    expect(addYears(Date.UTC(2028, 1, 29, 12), 5)).toBe(Date.UTC(2033, 1, 28, 12));
    expect(addYears(Date.UTC(2026, 0, 31), 5)).toBe(Date.UTC(2031, 0, 31));
  });
});

describe('status and retention from the lifecycle facts (decision 0015)', () => {
  const DAY = 86_400_000;
  const revoked = facts.revocation;
  const extended = (id: string, creditGrantedAt: number) => facts.extension(id, `op-${id}`, creditGrantedAt);
  const ended = facts.extensionEnded;
  const corrected = (at: number): ConsentEvent => ({ type: 'RevocationCorrected', data: { redecConsentId: 'con-1', creditExtensionId: 'x-2', correctedAt: at } });
  const fiveYears = (from: number) => addYears(from, 5);

  it.each<[string, ConsentEvent[], number, string, number | null, string | null]>([
    ['granted inside the window', [], grantedAt + DAY, 'granted', null, null],
    ['expired after the window, floor from the loss of validity', [], validUntil + 1, 'expired', fiveYears(validUntil), 'loss_of_validity'],
    ['revoked by an effective revocation, floor from revokedAt', [revoked(grantedAt + DAY, true)], grantedAt + 2 * DAY, 'revoked', fiveYears(grantedAt + DAY), 'revocation'],
    ['revoked stays revoked after the window', [revoked(grantedAt + DAY, true)], validUntil + 10 * DAY, 'revoked', fiveYears(grantedAt + DAY), 'revocation'],
    ['extended while a credit extension is active, even after the window', [extended('x-1', grantedAt + DAY)], validUntil + 100 * DAY, 'extended', null, null],
    ['extended despite a revocation kept without effect', [extended('x-1', grantedAt + DAY), revoked(grantedAt + 2 * DAY, false)], grantedAt + 3 * DAY, 'extended', null, null],
    ['a corrected revocation no longer revokes: extended', [revoked(grantedAt + 2 * DAY, true), extended('x-2', grantedAt + DAY), corrected(grantedAt + 3 * DAY)], grantedAt + 4 * DAY, 'extended', null, null],
    ['back to granted when the extension ends inside the window', [extended('x-1', grantedAt + DAY), ended('x-1', grantedAt + 2 * DAY)], grantedAt + 3 * DAY, 'granted', null, null],
    ['expired after the last obligation is extinguished past the window', [extended('x-1', grantedAt + DAY), ended('x-1', validUntil + 50 * DAY)], validUntil + 60 * DAY, 'expired', fiveYears(validUntil + 50 * DAY), 'obligation_extinguished'],
    ['a revocation kept without effect takes effect when the extension ends, the floor from then', [extended('x-1', grantedAt + DAY), revoked(grantedAt + 2 * DAY, false), ended('x-1', grantedAt + 40 * DAY)], grantedAt + 41 * DAY, 'revoked', fiveYears(grantedAt + 40 * DAY), 'revocation'],
    ['an obligation ended before a revocation leaves it effective from revokedAt', [extended('x-1', grantedAt + DAY), ended('x-1', grantedAt + 2 * DAY), revoked(grantedAt + 3 * DAY, true)], grantedAt + 4 * DAY, 'revoked', fiveYears(grantedAt + 3 * DAY), 'revocation'],
    ...(['acceleration_executed', 'superseded_by_new_obligation'] as const).map((endReason): [string, ConsentEvent[], number, string, number | null, string | null] => [
      `expired, the floor named by how the last obligation ended: ${endReason}`,
      [extended('x-1', grantedAt + DAY), ended('x-1', validUntil + 50 * DAY, { endReason, supersededByObligationReference: endReason === 'acceleration_executed' ? null : 'op-9' })],
      validUntil + 60 * DAY,
      'expired',
      fiveYears(validUntil + 50 * DAY),
      endReason,
    ]),
  ])('%s', (_case, events, now, status, retentionUntil, retentionBasis) => {
    expect(deriveStatus(given(...events), now)).toEqual({ status, retentionUntil, retentionBasis });
  });

  it('shows the revocation and the extensions as recorded', () => {
    const representation = regulatoryRepresentation(given(extended('x-1', grantedAt + DAY), revoked(grantedAt + 2 * DAY, false)), grantedAt + 3 * DAY);
    expect(representation.revocation).toEqual({ revokedAt: grantedAt + 2 * DAY, channel: 'digital', effective: false, effectiveAt: null, correctedAt: null });
    expect(representation.creditExtensions).toEqual([
      {
        creditExtensionId: 'x-1',
        objectiveCode: '02',
        creditOperationReference: 'op-x-1',
        creditGrantedAt: grantedAt + DAY,
        extendedAt: grantedAt + DAY + 1000,
        status: 'active',
        endReason: null,
        endedAt: null,
        supersededByObligationReference: null,
        effective: true,
        ineffectiveReason: null,
      },
    ]);
    const correctedState = given(revoked(grantedAt + 2 * DAY, true), extended('x-2', grantedAt + DAY), corrected(grantedAt + 3 * DAY));
    expect(regulatoryRepresentation(correctedState, grantedAt + 4 * DAY).revocation).toMatchObject({ effective: false, correctedAt: grantedAt + 3 * DAY });
  });

  it('never reads revoked with a revocation not in effect, nor a revocation in effect on a consent that is not revoked', () => {
    const histories: ConsentEvent[][] = [
      [revoked(grantedAt + DAY, true)],
      [extended('x-1', grantedAt + DAY), revoked(grantedAt + 2 * DAY, false)],
      [extended('x-1', grantedAt + DAY), revoked(grantedAt + 2 * DAY, false), ended('x-1', grantedAt + 3 * DAY)],
      [revoked(grantedAt + 2 * DAY, true), extended('x-2', grantedAt + DAY), corrected(grantedAt + 3 * DAY)],
    ];
    for (const events of histories) {
      const representation = regulatoryRepresentation(given(...events), grantedAt + 5 * DAY);
      expect(representation.status === 'revoked').toBe(representation.revocation!.effective);
    }
  });
});
