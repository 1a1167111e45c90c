import { rutPattern } from './rut';

/**
 * Finds secrets and identifiers in text the service sends out (response
 * bodies and headers, log lines): API keys, the master key, the consent
 * page's token, the embed result secret, webhook secrets, identifier
 * hashes and ciphertexts, and RUTs in any spelling.
 */
export interface Secret {
  /** What it is, in words: the report names it and never prints it. */
  label: string;
  value: string;
}

export interface LeakDetector {
  /** The labels of every secret or RUT in `text`. */
  find(text: string): string[];
  /** `text` with every secret and RUT replaced by its label, to be printed. */
  mask(text: string): string;
}

/** Shorter values would be found by chance. */
const MIN_SECRET_LENGTH = 12;

export function leakDetector(secrets: readonly Secret[], ruts: ReadonlyArray<{ label: string; rut: string }>): LeakDetector {
  const spellings = secrets
    .filter((secret) => secret.value.length >= MIN_SECRET_LENGTH)
    .flatMap((secret) => spellingsOf(secret.value).map((spelling) => ({ label: secret.label, spelling })));
  const patterns = ruts.map(({ label, rut }) => ({ label, pattern: rutPattern(rut) }));
  return {
    find(text) {
      const found = new Set<string>();
      for (const { label, spelling } of spellings) if (text.includes(spelling)) found.add(label);
      for (const { label, pattern } of patterns) if (pattern.test(text)) found.add(label);
      return [...found];
    },
    mask(text) {
      let masked = text;
      for (const { label, spelling } of spellings) masked = masked.split(spelling).join(`«${label}»`);
      for (const { label, pattern } of patterns) masked = masked.replace(new RegExp(pattern.source, 'g'), `«${label}»`);
      return masked;
    },
  };
}

/**
 * The ways one value may be written out: as is, percent-encoded (in a URL
 * or a cookie), with JSON's optional `\/`, and a base64 value in base64url.
 */
export function spellingsOf(value: string): string[] {
  const spellings = [value, encodeURIComponent(value), value.replace(/\//g, '\\/')];
  if (/^[A-Za-z0-9+/_-]+=*$/.test(value)) spellings.push(value.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
  return [...new Set(spellings)];
}

/** Where in an answer a secret was found. */
export interface Leak {
  label: string;
  /** `body` or `header <name>`. */
  where: string;
}

export interface SentRequest {
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface Answer {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * Every secret or RUT in an answer, but one: a secret the request itself
 * presented may come back to it in `Set-Cookie`, which is how a page trades
 * the token in its URL for a cookie. Anywhere else, even an echo of the
 * caller's own secret is a leak: pages are cached, framed and shown.
 */
export function leaksInAnswer(detector: LeakDetector, request: SentRequest, answer: Answer): Leak[] {
  let presented: Set<string> | undefined;
  const presentedByRequest = () => (presented ??= new Set(detector.find([request.url, ...Object.values(request.headers), request.body?.toString('utf8') ?? ''].join('\n'))));
  const leaks: Leak[] = detector.find(answer.body.toString('utf8')).map((label) => ({ label, where: 'body' }));
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join('\n') : value;
    for (const label of detector.find(text)) {
      if (name.toLowerCase() === 'set-cookie' && presentedByRequest().has(label)) continue;
      leaks.push({ label, where: `header ${name}` });
    }
  }
  return leaks;
}
