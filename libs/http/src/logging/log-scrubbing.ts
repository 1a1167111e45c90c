/**
 * What the service masks in free text before it is logged: messages and
 * error stacks are built by the service, Fastify, Nest and Node from values
 * they were given (a URL with its query, a header, a JSON body quoted by
 * JSON.parse), so keys alone (pino's `redact`) cannot keep them out.
 */
const MASKED = '[redacted]';

const RULES: ReadonlyArray<readonly [RegExp, string]> = [
  // A request as Fastify and Nest quote it (`Route GET:/x not found`, `Cannot GET /x`): its path is the caller's text, whatever it holds.
  [/\b(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)([: ])\/[^\s"'`]*/g, `$1$2${MASKED}`],
  // The query string of a path or URL: consent page tokens, lookup codes and any integrator's value travel there.
  [/((?:\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#"'`]+)?\/[^\s?#"'`]*)\?[^\s#"'`]*/gi, `$1?${MASKED}`],
  // A credential as an Authorization header or a URL's user info carries it.
  [/\bBearer\s+[^\s"'`,;]+/gi, `Bearer ${MASKED}`],
  [/(:\/\/)[^\s/@"'`]+@/g, `$1${MASKED}@`],
  // The service's own secrets, recognisable by their prefixes: API keys, embed result secrets, webhook signing secrets.
  [/\b(lk|embsec|whsec)_[A-Za-z0-9_+/=-]+/g, `$1_${MASKED}`],
  // A Chilean RUT, with or without its dots.
  [/\b\d{1,2}(?:\.\d{3}){2}-[\dkK]\b|\b\d{7,8}-[\dkK]\b/g, MASKED],
  // V8 quotes the text it could not parse: `Unexpected token 'x', ..."value":"12"... is not valid JSON`.
  [/, (?:\.\.\.)?".*?"(?:\.\.\.)? is not valid JSON/gs, `, "${MASKED}" is not valid JSON`],
];

/**
 * A character (or word) without which none of the rules above can match: a
 * query's `?`, a URL's `:`, a secret's `_`, a RUT's digits, the quotes of
 * JSON.parse, `Bearer`, a method before a path. Most lines hold none ("request completed", once per
 * request) and are returned without running the rules. A new rule adds its
 * own mark here.
 */
const MAY_HOLD_A_VALUE = /[?:_"\d]|bearer|(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) \//;

/** `text` with every value the rules above recognise replaced by `[redacted]`. */
export function scrubLogText(text: string): string {
  if (!MAY_HOLD_A_VALUE.test(text)) return text;
  return RULES.reduce((scrubbed, [pattern, replacement]) => scrubbed.replace(pattern, replacement), text);
}

/** What the request log says of a request no route matched: its path is the caller's text, whatever it holds. */
export const UNMATCHED_ROUTE = '(unmatched)';

/**
 * A request as the request log names it: by the pattern of the route that
 * answered it (`/v1/redec/consents/:redecConsentId`), never by its path,
 * where a caller may put a RUT, a key or anything else (docs/security.md,
 * "No secret in any log"). A request no route matched (an unknown path, one refused by
 * routing itself) is UNMATCHED_ROUTE.
 */
export function routeOf(request: { is404?: boolean; routeOptions?: { url?: string } }): string {
  return (request.is404 ? undefined : request.routeOptions?.url) ?? UNMATCHED_ROUTE;
}
