/** Which consent an accepted session records: a REDEC grant or a general consent. */
export type EmbedConsentKind = 'redec' | 'general';

/**
 * The integrator opened a session on the service's consent page for one
 * customer and one embedded configuration version (frozen in the session's
 * interaction). The page's secret token is kept only as a hash; the secret
 * that signs the result is kept encrypted, to sign the redirect later.
 */
export interface EmbedSessionOpened {
  type: 'EmbedSessionOpened';
  data: {
    sessionId: string;
    interactionId: string;
    customerId: string;
    configurationId: string;
    consentKind: EmbedConsentKind;
    /** Where the consent is recorded once accepted (derived from the interaction). */
    consentId: string;
    pageTokenSha256: string;
    resultSecretCiphertext: string;
    returnUrl: string | null;
    dynamicReference: string | null;
    /** The configuration's allowed origins: who may frame the page. */
    allowedOrigins: string[];
    openedAt: number;
    expiresAt: number;
  };
}

/**
 * The data subject decided on the page. Single use: the decision is appended
 * at the revision read, so a second one (a replayed form, a second tab) is
 * refused. For an acceptance, `decidedAt` (the service's receipt) is the
 * regulatory grantedAt (spec 2.3, embedded capture).
 */
export interface EmbedSessionDecided {
  type: 'EmbedSessionDecided';
  data: { sessionId: string; outcome: 'accepted' | 'declined'; decidedAt: number };
}

export type EmbedSessionEvent = EmbedSessionOpened | EmbedSessionDecided;
