import fc from 'fast-check';
import { ConsentNo, EndReason, OBLIGATION_REFERENCES, OBLIGATION_SOURCE_SYSTEM, OTHER_SOURCE_SYSTEM } from './ledger';

/**
 * The generated sequences: plain data, so fast-check shrinks them by dropping
 * and simplifying commands. A command names what it acts on by position
 * (the n-th extension registered, modulo how many there are) and its
 * instants relative to an anchor (the consent's grant, the window's end, the
 * revocation, ...), so a shrunk sequence keeps hitting the same edges.
 */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

const END_REASONS: EndReason[] = ['obligation_extinguished', 'acceleration_executed', 'superseded_by_new_obligation'];

export type Anchor = 'now' | 'grantedAt' | 'validUntil' | 'revokedAt' | 'creditGrantedAt' | 'endedAt' | 'decidedAt' | 'expiresAt';
export interface Instant {
  anchor: Anchor;
  offset: number;
  /** Most instants a bank states are in the past: capped at the receipt unless this is false, so a sequence still reaches past that bound sometimes. */
  capped: boolean;
}

export type Command =
  | { kind: 'grant'; consent: ConsentNo; customer: 0 | 1; before: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'revoke'; consent: ConsentNo; occurredAt: Instant }
  | {
      kind: 'register';
      consent: ConsentNo;
      reference: string;
      objectiveCode: string;
      customer: 'own' | 'own in upper case' | 'other';
      creditGrantedAt: Instant;
      sourceReference: string | undefined;
    }
  | { kind: 'end'; extension: number; endReason: EndReason; supersededBy: string | null; occurredAt: Instant | null }
  | { kind: 'annulExtension' | 'annulExtensionEnd'; extension: number }
  | { kind: 'bind'; sourceSystem: string; reference: string; bindingKind: 'consent' | 'legacy_pre_redec' | 'no_applicable_consent'; consent: ConsentNo; obligationGrantedAt: Instant }
  | { kind: 'annulBinding'; binding: number }
  | {
      kind: 'authorize';
      consent: ConsentNo;
      mode: 'initial_window' | 'manage_existing_obligation' | 'evaluate_new_credit';
      sourceSystem: string;
      reference: string;
      objectiveCode: string;
      assertedAt: Instant;
    }
  /** `access` counts the authorized decisions only, or every decision. */
  | { kind: 'confirm'; access: number; authorizedOnly: boolean; outcome: 'accessed' | 'failed' | 'cancelled'; accessedAt: Instant };

export interface Sequence {
  /** The service clock at the first command. */
  start: number;
  commands: Command[];
}

/** Edges first (the millisecond either side of a bound, the skews, the TTL), then anything within three weeks. */
const offsets = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(0, -1, 1, -MINUTE, -5 * MINUTE, -5 * MINUTE - 1, 5 * MINUTE + 1, 10 * MINUTE, 10 * MINUTE + 1, -HOUR, HOUR, -DAY, DAY, -7 * DAY, -7 * DAY - 1) },
  { weight: 2, arbitrary: fc.integer({ min: -21 * DAY, max: 21 * DAY }) },
);
const instant = (...anchors: Anchor[]) =>
  fc.record({ anchor: fc.constantFrom<Anchor>('now', ...anchors), offset: offsets, capped: fc.constantFrom(true, true, true, false) });

/** Consent 1 most often, so that its facts pile up; 2 and 3 for what crosses consents. */
const consent = fc.constantFrom<ConsentNo>(1, 1, 1, 2, 2, 3);
/** op-1 and op-2 most often, so that obligations collide across extensions, ends and bindings. */
const [op1, op2, op3, op4] = OBLIGATION_REFERENCES;
const reference = fc.constantFrom(op1, op1, op1, op2, op2, op3, op4);
const sourceSystem = fc.constantFrom(OBLIGATION_SOURCE_SYSTEM, OBLIGATION_SOURCE_SYSTEM, OBLIGATION_SOURCE_SYSTEM, OTHER_SOURCE_SYSTEM);
const objectiveCode = fc.constantFrom('02', '02', '02', '03', '03', '02', '03', '04');
const index = fc.nat({ max: 20 });

const grantOf = (consent: fc.Arbitrary<ConsentNo>): fc.Arbitrary<Command> => fc.record({
  kind: fc.constant('grant' as const),
  consent,
  customer: fc.constantFrom<0 | 1>(0, 1),
  // Up to 7 calendar days before the receipt (docs/reference/grants.md, "Timing rules").
  before: fc.oneof(fc.constantFrom(0, 7 * DAY), fc.integer({ min: 0, max: 7 * DAY })),
});
/** Consent 1 is granted first; later grants are mostly of the others. */
const grant = grantOf(fc.constantFrom<ConsentNo>(2, 2, 3, 3, 1));

const advance: fc.Arbitrary<Command> = fc.record({
  kind: fc.constant('advance' as const),
  ms: fc.oneof(fc.constantFrom(MINUTE, 10 * MINUTE + 1, HOUR, 6 * HOUR, DAY, 3 * DAY, 7 * DAY, 14 * DAY), fc.integer({ min: 1, max: 21 * DAY })),
});

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 1, arbitrary: grant },
  { weight: 4, arbitrary: advance },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('revoke' as const), consent, occurredAt: instant('grantedAt', 'validUntil', 'creditGrantedAt', 'endedAt') }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('register' as const),
      consent,
      reference,
      objectiveCode,
      customer: fc.constantFrom('own' as const, 'own' as const, 'own' as const, 'own' as const, 'own' as const, 'own in upper case' as const, 'own in upper case' as const, 'other' as const),
      creditGrantedAt: instant('grantedAt', 'validUntil', 'revokedAt', 'endedAt'),
      sourceReference: fc.constantFrom<string | undefined>('grant-ref', 'grant-ref', undefined, '', '  '),
    }),
  },
  {
    weight: 3,
    arbitrary: fc
      .record({
        extension: index,
        // A superseding reference with its reason, mostly; without it, or with another reason, sometimes.
        end: fc.oneof(
          { weight: 4, arbitrary: fc.record({ endReason: fc.constant<EndReason>('superseded_by_new_obligation'), supersededBy: reference }) },
          { weight: 4, arbitrary: fc.record({ endReason: fc.constantFrom<EndReason>('obligation_extinguished', 'acceleration_executed'), supersededBy: fc.constant(null) }) },
          { weight: 1, arbitrary: fc.record({ endReason: fc.constantFrom<EndReason>(...END_REASONS), supersededBy: fc.option(reference) }) },
        ),
        occurredAt: fc.option(instant('creditGrantedAt', 'revokedAt', 'validUntil'), { freq: 2 }),
      })
      .map(({ extension, end, occurredAt }): Command => ({ kind: 'end', extension, ...end, occurredAt })),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('annulExtension' as const, 'annulExtensionEnd' as const), extension: index }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('bind' as const),
      sourceSystem,
      reference,
      bindingKind: fc.constantFrom('consent' as const, 'consent' as const, 'consent' as const, 'legacy_pre_redec' as const, 'no_applicable_consent' as const),
      consent,
      obligationGrantedAt: instant('grantedAt', 'validUntil', 'revokedAt', 'creditGrantedAt', 'endedAt'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('annulBinding' as const), binding: index }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('authorize' as const),
      consent,
      mode: fc.constantFrom('initial_window' as const, 'manage_existing_obligation' as const, 'manage_existing_obligation' as const, 'evaluate_new_credit' as const),
      sourceSystem,
      reference,
      objectiveCode,
      assertedAt: fc.record({ anchor: fc.constant<Anchor>('now'), offset: fc.constantFrom(0, 0, 0, 0, -HOUR, -HOUR, -DAY, -DAY, 5 * MINUTE, 5 * MINUTE + 1), capped: fc.constant(false) }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('confirm' as const),
      access: index,
      authorizedOnly: fc.constantFrom(true, true, true, false),
      outcome: fc.constantFrom('accessed' as const, 'accessed' as const, 'failed' as const, 'cancelled' as const),
      accessedAt: instant('decidedAt', 'expiresAt', 'revokedAt', 'endedAt'),
    }),
  },
);

/** Starts inside the shipped holiday table's coverage (2024-2030), anywhere in the day, so windows cross weekends and holidays. */
const FIRST_START = Date.UTC(2024, 0, 8);
const LAST_START = Date.UTC(2029, 11, 31);
/** The clock never runs past this, so every window computed stays inside the calendar's coverage. */
export const HORIZON = Date.UTC(2030, 10, 30);

export const sequences = (maxCommands: number): fc.Arbitrary<Sequence> =>
  fc.record({
    start: fc.integer({ min: FIRST_START / MINUTE, max: LAST_START / MINUTE }).map((minutes) => minutes * MINUTE),
    // Consent 1 is granted first, so the rest of the sequence has something to act on.
    commands: fc
      .tuple(grantOf(fc.constant(1)), fc.array(grant, { maxLength: 2 }), fc.array(command, { maxLength: maxCommands, size: 'max' }))
      .map(([first, grants, rest]) => [first, ...grants, ...rest]),
  });
