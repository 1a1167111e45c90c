/**
 * Run by the group-commit tests as two processes racing on one store (a
 * SQLite file or a postgres:// URL), as a revocation and access decisions
 * would in two service processes. Arguments: the store, a role, the consent
 * stream (which must exist), and for `authorize` a number of decisions.
 *
 * - `revoke`: appends to the consent stream with `any`, one event at a
 *   time with a pause between, until the stream `<consent>-stop` exists;
 *   prints how many events it appended.
 * - `authorize`: waits until the consent stream moves (the revoking process
 *   runs), then makes the decisions, eight in flight: each reads the consent
 *   stream's last revision and appends an `ACCESS_EVENT_TYPE` event
 *   recording it to a stream `access-<i>` of its own, guarded by that
 *   revision; a refused append is decided again on a fresh read. Then it
 *   appends to `<consent>-stop` and prints how many decisions it recorded
 *   and how many appends were refused.
 */
import { EventStore, WrongExpectedVersionError } from '../event-store.port';
import { newEvent } from './event-store.contract';
import { openStoreAt } from './open-store-at';

export const ACCESS_EVENT_TYPE = 'test.access-authorized';

const IN_FLIGHT = 8;
/**
 * How long a decision takes between its read and its append, and the pause
 * between revocations: revocations land between a read and its append
 * often, and not so often that decisions are rarely recorded.
 */
const DECISION_MS = 2;
const REVOCATION_PAUSE_MS = 5;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const [target, role, consent, count] = process.argv.slice(2);
  const store = openStoreAt(target);
  try {
    const result = role === 'revoke' ? await revoke(store, consent) : await authorize(store, consent, Number(count));
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await store.close();
  }
}

async function revoke(store: EventStore, consent: string): Promise<{ revocations: number }> {
  let revocations = 0;
  const stopped = async () => (await store.readStream(`${consent}-stop`, { maxCount: 1 })).length > 0;
  while (!(await stopped())) {
    await store.append(consent, [newEvent('test.consent-revoked')], 'any');
    revocations += 1;
    await pause(REVOCATION_PAUSE_MS);
  }
  return { revocations };
}

async function authorize(store: EventStore, consent: string, decisions: number): Promise<{ authorized: number; refused: number }> {
  const revisionOf = async () => (await store.readStream(consent, { direction: 'backwards', maxCount: 1 }))[0].revision;
  const initial = await revisionOf();
  while ((await revisionOf()) === initial) await pause(10);
  let next = 0;
  let authorized = 0;
  let refused = 0;
  const decider = async () => {
    for (let i = next++; i < decisions; i = next++) {
      for (;;) {
        const consentRevision = await revisionOf();
        await pause(DECISION_MS);
        try {
          await store.append(`access-${i}`, [newEvent(ACCESS_EVENT_TYPE, { consentRevision })], 'no_stream', {
            expect: [{ streamId: consent, expectedRevision: consentRevision }],
          });
          authorized += 1;
          break;
        } catch (error) {
          if (!(error instanceof WrongExpectedVersionError && error.streamId === consent)) throw error;
          refused += 1;
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: IN_FLIGHT }, decider));
  } finally {
    await store.append(`${consent}-stop`, [newEvent()], 'no_stream');
  }
  return { authorized, refused };
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exitCode = 1;
  });
}
