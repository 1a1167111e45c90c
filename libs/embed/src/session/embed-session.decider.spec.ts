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

  it('reads a session opened for one configuration before sessions held several as a session of one item', () => {
    expect(session.items).toEqual([{ interactionId: 'int-1', configurationId: 'cfg-1', consentKind: 'redec', consentId: 'con-1' }]);
    expect(session).not.toHaveProperty('configurationId');
  });

  it('takes one decision while open, stamped with the receipt, and then is that decision', () => {
    const decided = decideEmbedSession(session, ['accepted'], openedAt + 5000);
    expect(decided).toEqual({ type: 'EmbedSessionDecided', data: { sessionId: 'ses-1', outcome: 'accepted', decisions: ['accepted'], decidedAt: openedAt + 5000 } });
    const after: EmbedSession = evolveEmbedSession(session, decided)!;
    expect(embedSessionStatus(after, session.expiresAt + 1)).toBe('accepted');
    expect(refusalOf(() => decideEmbedSession(after, ['declined'], openedAt + 6000)).code).toBe('embed_session_already_used');
    expect(refusalOf(() => decideEmbedSession(after, ['accepted'], openedAt + 6000)).code).toBe('embed_session_already_used');
  });

  it('takes a decision on each of several configurations, and says whether all, none or some were accepted', () => {
    const { interactionId: _i, configurationId: _c, consentKind: _k, consentId: _d, ...common } = opened.data as Extract<EmbedSessionOpened['data'], { consentId: string }>;
    const items = ['cfg-1', 'cfg-2', 'cfg-3'].map((configurationId, index) => ({ interactionId: `int-${index}`, configurationId, consentKind: 'general' as const, consentId: `con-${index}` }));
    const several = evolveEmbedSession(null, { type: 'EmbedSessionOpened', data: { ...common, items } })!;
    expect(several.items).toEqual(items);
    const outcome = (decisions: Array<'accepted' | 'declined'>) => decideEmbedSession(several, decisions, openedAt + 5000).data.outcome;
    expect(outcome(['accepted', 'accepted', 'accepted'])).toBe('accepted');
    expect(outcome(['declined', 'declined', 'declined'])).toBe('declined');
    expect(outcome(['accepted', 'declined', 'accepted'])).toBe('partially_accepted');
    const decided = evolveEmbedSession(several, decideEmbedSession(several, ['accepted', 'declined', 'accepted'], openedAt + 5000))!;
    expect(decided.decision).toEqual({ outcome: 'partially_accepted', decisions: ['accepted', 'declined', 'accepted'], decidedAt: openedAt + 5000 });
    expect(embedSessionStatus(decided, openedAt + 6000)).toBe('partially_accepted');
  });

  it('reads a decision recorded before decisions were kept per item as the decision on its one item', () => {
    const decided = evolveEmbedSession(session, { type: 'EmbedSessionDecided', data: { sessionId: 'ses-1', outcome: 'declined', decidedAt: openedAt + 5000 } })!;
    expect(decided.decision).toEqual({ outcome: 'declined', decisions: ['declined'], decidedAt: openedAt + 5000 });
  });

  it('refuses a decision once expired', () => {
    expect(refusalOf(() => decideEmbedSession(session, ['accepted'], session.expiresAt)).code).toBe('embed_session_expired');
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
  const result = { sessionId: 'ses-1', status: 'accepted' as const, items: null, dynamicReference: 'ref & 1', timestamp: 1_795_000_005 };

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

  it('lists, for a session of several configurations, those accepted and those declined, under the signature', () => {
    const items = [
      { configurationId: 'cfg-1', decision: 'accepted' as const },
      { configurationId: 'cfg-2', decision: 'declined' as const },
      { configurationId: 'cfg-3', decision: 'accepted' as const },
    ];
    const redirect = resultRedirectUrl('https://bank.example/back', secret, { ...result, status: 'partially_accepted', items });
    const url = new URL(redirect);
    expect([...url.searchParams.keys()]).toEqual(['embed_session_id', 'status', 'accepted', 'declined', 'reference', 'timestamp', 'signature']);
    expect([url.searchParams.get('status'), url.searchParams.get('accepted'), url.searchParams.get('declined')]).toEqual(['partially_accepted', 'cfg-1,cfg-3', 'cfg-2']);
    const query = redirect.split('?')[1];
    expect(verifyResultQuery(secret, query)).toBe(true);
    expect(verifyResultQuery(secret, query.replace('declined=cfg-2', 'declined='))).toBe(false);
    const allAccepted = new URL(resultRedirectUrl('https://bank.example/back', secret, { ...result, items: items.map((i) => ({ ...i, decision: 'accepted' as const })) }));
    expect(allAccepted.searchParams.get('declined')).toBe('');
  });

  it('omits the reference when the integrator gave none', () => {
    expect(new URL(resultRedirectUrl('https://bank.example/back', secret, { ...result, dynamicReference: null })).searchParams.has('reference')).toBe(false);
  });
});
