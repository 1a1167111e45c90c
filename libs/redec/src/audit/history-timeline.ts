import { ConsentHistory } from './consent-history';

/**
 * The history as a human-readable timeline: one line per fact (when, where
 * in the store, what, who, its hash) and the status it left the consent in.
 * Times are UTC, as recorded.
 */
export function historyTimeline(history: ConsentHistory): string {
  const lines = history.events.map((e) =>
    [
      new Date(e.recordedAt).toISOString(),
      `#${e.position}`.padEnd(9),
      e.type.padEnd(28),
      `status ${e.state?.status ?? '-'}`.padEnd(16),
      `by ${e.actor ?? '-'}`.padEnd(36),
      `hash ${e.hash.slice(0, 16)}`,
    ].join('  '),
  );
  const r = history.representation;
  return [
    `REDEC consent ${history.redecConsentId} (${r.internalConsentCode}), as of ${new Date(history.asOf).toISOString()}`,
    ...lines,
    `status ${r.status}; granted ${new Date(r.grantedAt).toISOString()}; initial window until ${new Date(r.initialAccessValidUntil).toISOString()}` +
      (r.revocation ? `; revoked ${new Date(r.revocation.revokedAt).toISOString()} (effective: ${r.revocation.effective})` : '') +
      (r.retentionUntil !== null ? `; retain until ${new Date(r.retentionUntil).toISOString()} (${r.retentionBasis})` : ''),
    '',
  ].join('\n');
}
