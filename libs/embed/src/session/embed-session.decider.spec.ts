import { refusalOf } from '@ledger/platform/testing';
import { EmbedSession, decideEmbedSession, embedSessionStatus, evolveEmbedSession, pageTokenMatches, pageTokenSha256 } from './embed-session.decider';
import { EmbedSessionOpened } from './embed-session.events';
import { generateResultSecret, resultRedirectUrl, verifyResultQuery } from './embed-result';

const openedAt = 1_795_000_000_000;
const opened: EmbedSessionOpened = {
  type: 'EmbedSessionOpened',
  data: {
    sessionId: 'ses-1',
    interactionId: 'int-1',
    customerId: 'cus-1',
    configurationId: 'cfg-1',
    consentKind: 'redec',
    consentId: 'con-1',
    pageTokenSha256: pageTokenSha256('the-token'),
    resultSecretCiphertext: 'ciphertext',
    returnUrl: 'https://bank.example/back',
    dynamicReference: 'ref-1',
    allowedOrigins: ['https://bank.example'],
    openedAt,
    expiresAt: openedAt + 900_000,
  },
};
const session = evolveEmbedSession(null, opened)!;

describe('an embed session', () => {
  it('is open until expiresAt, then expired, without any fact', () => {
    expect(embedSessionStatus(session, openedAt)).toBe('open');
    expect(embedSessionStatus(session, session.expiresAt - 1)).toBe('open');
    expect(embedSessionStatus(session, session.expiresAt)).toBe('expired');
  });

  it('takes one decision while open, stamped with the receipt, and then is that decision', () => {
    const decided = decideEmbedSession(session, 'accepted', openedAt + 5000);
    expect(decided).toEqual({ type: 'EmbedSessionDecided', data: { sessionId: 'ses-1', outcome: 'accepted', decidedAt: openedAt + 5000 } });
    const after: EmbedSession = evolveEmbedSession(session, decided)!;
    expect(embedSessionStatus(after, session.expiresAt + 1)).toBe('accepted');
    expect(refusalOf(() => decideEmbedSession(after, 'declined', openedAt + 6000)).code).toBe('embed_session_already_used');
    expect(refusalOf(() => decideEmbedSession(after, 'accepted', openedAt + 6000)).code).toBe('embed_session_already_used');
  });

  it('refuses a decision once expired', () => {
    expect(refusalOf(() => decideEmbedSession(session, 'accepted', session.expiresAt)).code).toBe('embed_session_expired');
  });

  it('knows its page token only by hash', () => {
    expect(session.pageTokenSha256).not.toContain('the-token');
    expect(pageTokenMatches(session, 'the-token')).toBe(true);
    expect(pageTokenMatches(session, 'the-token ')).toBe(false);
    expect(pageTokenMatches(session, '')).toBe(false);
  });
});

describe('the signed result', () => {
  const secret = generateResultSecret();
  const result = { sessionId: 'ses-1', status: 'accepted' as const, dynamicReference: 'ref & 1', timestamp: 1_795_000_005 };

  it('keeps the return URL and appends the result, the signature last', () => {
    const url = new URL(resultRedirectUrl('https://bank.example/back?step=2', secret, result));
    expect([...url.searchParams.entries()]).toEqual([
      ['step', '2'],
      ['embed_session_id', 'ses-1'],
      ['status', 'accepted'],
      ['reference', 'ref & 1'],
      ['timestamp', '1795000005'],
      ['signature', expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/)],
    ]);
  });

  it('verifies with the session secret only, and not once any parameter is altered', () => {
    const query = resultRedirectUrl('https://bank.example/back', secret, result).split('?')[1];
    expect(verifyResultQuery(secret, query)).toBe(true);
    expect(verifyResultQuery(generateResultSecret(), query)).toBe(false);
    expect(verifyResultQuery(secret, query.replace('status=accepted', 'status=declined'))).toBe(false);
    expect(verifyResultQuery(secret, query.replace('timestamp=1795000005', 'timestamp=1795000999'))).toBe(false);
    expect(verifyResultQuery(secret, query.split('&signature=')[0])).toBe(false);
  });

  it('omits the reference when the integrator gave none', () => {
    expect(new URL(resultRedirectUrl('https://bank.example/back', secret, { ...result, dynamicReference: null })).searchParams.has('reference')).toBe(false);
  });
});
