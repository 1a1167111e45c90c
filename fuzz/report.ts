import { FuzzRequest } from './generate';
import { Failure, FuzzResult, megabytes } from './fuzz';

/**
 * The run's summary as printed: the figures, then every failure class (what
 * failed, with which status, on which kind of request) with the routes it
 * hit and a reproduction of its smallest request, and how to replay it.
 */
export function summarize(result: FuzzResult): string {
  const statuses = Object.entries(result.histogram)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status} ×${count}`)
    .join(', ');
  const classes = failureClasses(result.failures);
  const lines = [
    `fuzz: seed ${result.seed}, ${result.requestsSent} requests sent to ${result.operations} operations, then ${result.largeUploadsSent} large evidence uploads at once, in ${result.seconds} s`,
    `status histogram: ${statuses}`,
    `5xx: ${result.serverErrors}   no answer: ${result.noAnswers}   leaks: ${result.leaksInAnswers} in answers, ${result.leaksInLog} in the log   ` +
      `facts from refused requests: ${result.factsFromRefusedRequests}   promised refusals missing: ${result.promisedRefusalsMissing}   peak RSS: ${megabytes(result.peakRssBytes)} (limit ${megabytes(result.rssLimitBytes)})`,
  ];
  if (classes.length === 0) return [...lines, 'PASSED: no failure', ''].join('\n');
  lines.push(`FAILED: ${result.failures.length} failures in ${classes.length} classes`);
  classes.forEach((failureClass, i) => {
    lines.push('', `${i + 1}. ${failureClass.title} (${failureClass.failures.length})`);
    for (const [operation, indexes] of failureClass.operations) {
      lines.push(`   ${operation} ×${indexes.length} (#${indexes.slice(0, 5).join(', #')}${indexes.length > 5 ? ', …' : ''})`);
    }
    const example = failureClass.example;
    lines.push(`   ${example.detail}`);
    if (example.request) lines.push(...reproduction(example.request, result.seed, result.mask).map((line) => `   ${line}`));
  });
  return [...lines, ''].join('\n');
}

interface FailureClass {
  title: string;
  failures: Failure[];
  /** Operation → the indexes of its requests in this class. */
  operations: Map<string, number[]>;
  /** The failure with the smallest request: the one to reproduce. */
  example: Failure;
}

/**
 * Failures with one cause: a 5xx, a silence or a fact recorded by the same
 * kind of request (`body: deep nesting`) whatever the route; a leak of the
 * same secret in the same place whatever the request; the RSS limit.
 */
export function failureClasses(failures: readonly Failure[]): FailureClass[] {
  const classes = new Map<string, FailureClass>();
  for (const failure of failures) {
    const title = titleOf(failure);
    const existing: FailureClass = classes.get(title) ?? { title, failures: [], operations: new Map(), example: failure };
    existing.failures.push(failure);
    if (failure.request) {
      existing.operations.set(failure.request.operation, [...(existing.operations.get(failure.request.operation) ?? []), failure.request.index]);
      if (!existing.example.request || size(failure.request) < size(existing.example.request)) existing.example = failure;
    }
    classes.set(title, existing);
  }
  return [...classes.values()];
}

function titleOf(failure: Failure): string {
  switch (failure.kind) {
    case '5xx':
    case 'fact recorded by a refused request':
    case 'promised refusal missing':
    case 'valid upload refused':
      return `${failure.kind} (${failure.status}) on ${failure.request?.strategy}`;
    case 'no answer':
      return `${failure.kind} on ${failure.request?.strategy}`;
    case 'leak in an answer':
      return `${failure.kind}: ${failure.detail}`;
    case 'leak in the log':
      // The detail is `labels: the line`; the line differs for every request.
      return `${failure.kind}: ${failure.detail.slice(0, failure.detail.indexOf(': '))}`;
    case 'RSS above the limit':
      return failure.kind;
    default: {
      const unknown: never = failure.kind;
      return unknown;
    }
  }
}

const size = (request: FuzzRequest): number => request.url.length + (request.body?.length ?? 0);

/** The request as it was sent, secrets masked, keys named rather than printed, the body abbreviated; and the command that sends it again. */
export function reproduction(request: FuzzRequest, seed: number, mask: (text: string) => string): string[] {
  const cut = (text: string, length: number) => (text.length > length ? `${text.slice(0, length)}… (${text.length} characters)` : text);
  const headers = Object.entries(request.headers).map(([name, value]) => (name === 'Authorization' ? `Authorization: ${request.auth}` : `${name}: ${cut(mask(value), 80)}`));
  return [
    `reproduce #${request.index}: ${request.method} ${cut(mask(request.url), 200)}${request.target ? `   (${request.strategy} at ${request.target})` : ''}`,
    ...headers.map((header) => `  ${header}`),
    ...(request.body === undefined ? [] : [`  body (${request.body.length} bytes): ${mask(request.bodyDescription ?? '')}`]),
    // The large uploads (negative indexes) go together at the end of every run that replays nothing.
    request.index < 0 ? `replay: LEDGER_FUZZ_SEED=${seed} npm run fuzz (its large uploads)` : `replay: LEDGER_FUZZ_SEED=${seed} LEDGER_FUZZ_REPLAY=${request.index} npm run fuzz`,
  ];
}
