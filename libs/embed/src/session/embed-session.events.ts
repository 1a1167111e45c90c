/** Which consent an accepted item records: a REDEC grant or a general consent. */
export type EmbedConsentKind = 'redec' | 'general';

/** One configuration the page offers: its interaction (the version frozen), and where its consent is recorded once accepted. */
export interface EmbedSessionItem {
  interactionId: string;
  configurationId: string;
  consentKind: EmbedConsentKind;
  /** Derived from the interaction, so known from the start. */
  consentId: string;
}

interface EmbedSessionOpenedData {
  sessionId: string;
  customerId: string;
  pageTokenSha256: string;
  resultSecretCiphertext: string;
  returnUrl: string | null;
  dynamicReference: string | null;
  /** Who may frame the page: the origins every configuration of the session allows. */
  allowedOrigins: string[];
  openedAt: number;
  expiresAt: number;
}

/**
 * The integrator opened a session on the service's consent page for one
 * customer and one or more embedded configuration versions (each frozen in
 * an interaction of its own). The page's secret token is kept only as a
 * hash; the secret that signs the result is kept encrypted, to sign the
 * redirect later. Sessions opened before a page could offer several
 * configurations hold their one item's fields beside the others.
 */
export interface EmbedSessionOpened {
  type: 'EmbedSessionOpened';
  data: EmbedSessionOpenedData & ({ items: EmbedSessionItem[] } | EmbedSessionItem);
}

export type EmbedDecision = 'accepted' | 'declined';
/** The session's outcome over its items: every one accepted, every one declined, or some of each. */
export type EmbedOutcome = EmbedDecision | 'partially_accepted';

/**
 * The data subject decided on the page, on every item at once. Single use: the
 * decision is appended at the revision read, so a second one (a replayed form,
 * a second tab) is refused. `decidedAt` (the service's receipt) is the
 * regulatory grantedAt of what was accepted (docs/reference/grants.md,
 * "Embedded capture"). Sessions decided before a page could offer several
 * configurations have no `decisions`: their one item's decision is the outcome.
 */
export interface EmbedSessionDecided {
  type: 'EmbedSessionDecided';
  data: { sessionId: string; outcome: EmbedOutcome; decisions?: EmbedDecision[]; decidedAt: number };
}

export type EmbedSessionEvent = EmbedSessionOpened | EmbedSessionDecided;
