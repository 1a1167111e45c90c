import { refusalOf } from '@ledger/platform/testing';
import { PrivacyCenterSessionOpened, assertPrivacyCenterSessionOpen, decideEndPrivacyCenterSession, evolvePrivacyCenterSession } from './privacy-center-session';

const OPENED_AT = 1_790_000_000_000;
const opened: PrivacyCenterSessionOpened = {
  type: 'PrivacyCenterSessionOpened',
  data: { sessionId: 's-1', customerId: 'c-1', pageTokenSha256: 'a'.repeat(64), identityAssurance: 'client_authenticated', returnUrl: null, openedAt: OPENED_AT, expiresAt: OPENED_AT + 900_000 },
};
const session = evolvePrivacyCenterSession(null, opened)!;

describe('a privacy center session', () => {
  it('is open until it expires, and over from expiresAt on', () => {
    expect(() => assertPrivacyCenterSessionOpen(session, OPENED_AT + 899_999)).not.toThrow();
    expect(refusalOf(() => assertPrivacyCenterSessionOpen(session, OPENED_AT + 900_000)).code).toBe('privacy_center_session_expired');
  });

  it('is ended once, and is over from then on; ending one over already records nothing', () => {
    const ended = decideEndPrivacyCenterSession(session, OPENED_AT + 60_000)!;
    expect(ended).toEqual({ type: 'PrivacyCenterSessionEnded', data: { sessionId: 's-1', endedAt: OPENED_AT + 60_000 } });
    const after = evolvePrivacyCenterSession(session, ended)!;
    expect(refusalOf(() => assertPrivacyCenterSessionOpen(after, OPENED_AT + 60_001)).code).toBe('privacy_center_session_ended');
    expect(decideEndPrivacyCenterSession(after, OPENED_AT + 60_001)).toBeNull();
    expect(decideEndPrivacyCenterSession(session, OPENED_AT + 900_000)).toBeNull();
  });
});
