import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { bankingCalendar, initialAccessValidUntil } from '@ledger/redec';
import { DAY, HOUR, MINUTE } from './commands';
import { AccessLogEntry } from './invariants';
import { Action, Answer, CUSTOMERS, EndReason, Ledger, OBLIGATION_POOL, OBLIGATION_SOURCE_SYSTEM } from './ledger';
import { LifecycleSystem } from './lifecycle-system';
import { ReferenceModel } from './reference-model';
import { applyToBoth } from './run-sequence';
import { Clock } from './trace';

/**
 * Decision 0054's claim, as a property: the same facts give the same
 * answers whatever order the bank reports them in. A scenario is one consent
 * and a handful of facts, each with the instant it happened at (a
 * revocation, credits, the ends of obligations with their superseding ones,
 * bindings, annulments); two orders of arrival are drawn, the same receipt
 * times dealt out to the facts differently. Each order runs on the real code
 * and the reference model, compared at every step as the sequential
 * property does, and the two orders' final answers (the regulatory read
 * without the instants the service learned things at, every lookup, a fresh
 * access decision of each kind) must be equal.
 *
 * One order may refuse a fact the other records (a credit reported after
 * the revocation it postdates). The claim is that the recorded one then
 * keeps nothing alive. An annulment can give it back its effect (the end
 * that named an obligation as superseding is annulled): the refusal was
 * final, the bank was told, and the two orders then legitimately differ.
 * Such scenarios are counted, not compared.
 */

export const REFERENCES = ['op-1', 'op-2', 'op-3'] as const;
type Reference = (typeof REFERENCES)[number];

/** A fact, with the instant it happened at as an offset into the scenario's span of facts. */
export type Fact =
  | { kind: 'revoke'; at: number }
  | { kind: 'register'; reference: Reference; at: number }
  | { kind: 'end'; reference: Reference; at: number; endReason: EndReason; supersededBy: Reference | null }
  | { kind: 'annulEnd' | 'annulExtension'; reference: Reference }
  | { kind: 'bind'; reference: Reference; at: number; toConsent: boolean };

export interface Scenario {
  /** The grant's instant; received a minute later, before any other fact. */
  grantedAt: number;
  /** Facts happen in the two days after the grant, or in the four to two days before the window's end, so that their arrivals straddle it. */
  nearWindowEnd: boolean;
  facts: Fact[];
  /** Receipt times of the facts, as gaps after the facts' span; dealt out in each order. */
  gaps: number[];
  /** Two orders of arrival, as priorities: among the facts that may arrive (an end after its credit, an annulment after what it annuls), the lowest first. */
  priorities: [number[], number[]];
}

const SPAN = 2 * DAY;
/** Edges first: the same instant as another fact, one millisecond either side. */
const offset = fc.oneof({ weight: 2, arbitrary: fc.constantFrom(0, 1, HOUR, HOUR - 1, HOUR + 1, DAY, SPAN) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: SPAN }) });
const reference = fc.constantFrom<Reference>(...REFERENCES);
const endReason = fc.constantFrom<EndReason>('obligation_extinguished', 'acceleration_executed', 'superseded_by_new_obligation');

const fact: fc.Arbitrary<Fact> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('revoke' as const), at: offset }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('register' as const), reference, at: offset }) },
  {
    weight: 3,
    arbitrary: fc
      .record({ reference, at: offset, endReason, supersededBy: reference })
      .map(({ reference, at, endReason, supersededBy }): Fact => ({ kind: 'end', reference, at, endReason, supersededBy: endReason === 'superseded_by_new_obligation' && supersededBy !== reference ? supersededBy : null }))
      .filter((f) => f.kind !== 'end' || f.endReason !== 'superseded_by_new_obligation' || f.supersededBy !== null),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('annulEnd' as const, 'annulExtension' as const), reference }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('bind' as const), reference, at: offset, toConsent: fc.constantFrom(true, true, true, false) }) },
);

const FIRST_START = Date.UTC(2024, 0, 8);
const LAST_START = Date.UTC(2029, 10, 1);

export const scenarios: fc.Arbitrary<Scenario> = fc
  .record({
    grantedAt: fc.integer({ min: FIRST_START / MINUTE, max: LAST_START / MINUTE }).map((minutes) => minutes * MINUTE),
    nearWindowEnd: fc.boolean(),
    facts: fc.array(fact, { minLength: 2, maxLength: 12 }),
    gaps: fc.array(fc.integer({ min: 1, max: 8 * HOUR }), { minLength: 12, maxLength: 12 }),
    priorities: fc.tuple(fc.array(fc.nat(), { minLength: 12, maxLength: 12 }), fc.array(fc.nat(), { minLength: 12, maxLength: 12 })),
  })
  .map((s) => ({ ...s, facts: oneOfEach(s.facts) }));

/** One revocation, one credit, end and annulment of each per reference, one binding of each kind per reference: the same fact twice is the bank's retry, not a new fact. */
function oneOfEach(facts: Fact[]): Fact[] {
  const seen = new Set<string>();
  return facts.filter((f) => {
    const key = f.kind === 'revoke' ? 'revoke' : f.kind === 'bind' ? `bind ${f.reference} ${f.toConsent}` : `${f.kind} ${f.reference}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** What a fact must arrive after: the credit an end or an annulment is about, the end an annulment of it annuls. */
function prerequisitesOf(fact: Fact, facts: readonly Fact[]): number[] {
  const index = (kind: Fact['kind']) => facts.findIndex((f) => f.kind === kind && 'reference' in f && 'reference' in fact && f.reference === fact.reference);
  const needs = fact.kind === 'end' || fact.kind === 'annulExtension' ? [index('register')] : fact.kind === 'annulEnd' ? [index('register'), index('end')] : [];
  return needs;
}

/** The order the facts arrive in: repeatedly, of the facts whose prerequisites arrived (or never will), the one of lowest priority. */
export function arrivalOrder(facts: readonly Fact[], priorities: readonly number[]): number[] {
  const order: number[] = [];
  const left = new Set(facts.keys());
  while (left.size > 0) {
    const ready = [...left].filter((i) => prerequisitesOf(facts[i], facts).every((p) => p < 0 || !left.has(p)));
    const next = ready.reduce((best, i) => (priorities[i] < priorities[best] || (priorities[i] === priorities[best] && i < best) ? i : best));
    order.push(next);
    left.delete(next);
  }
  return order;
}

const calendar = bankingCalendar();

/** The instants of a scenario: where its facts happen, when each order's facts arrive, and when the final answers are read. */
export function timeline(scenario: Scenario) {
  const validUntil = initialAccessValidUntil(scenario.grantedAt, calendar);
  const from = scenario.nearWindowEnd ? validUntil - 4 * DAY : scenario.grantedAt + MINUTE;
  const arrivals: number[] = [];
  let receipt = from + SPAN;
  for (const gap of scenario.gaps.slice(0, scenario.facts.length)) arrivals.push((receipt += gap));
  return { validUntil, instant: (offsetInSpan: number) => from + offsetInSpan, arrivals, end: receipt + MINUTE };
}

const actionId = {
  extension: (reference: Reference) => `x-${reference}`,
  binding: (i: number) => `b-${i}`,
};

function actionOf(fact: Fact, i: number, instant: (offset: number) => number): Action {
  const obligation = (reference: Reference) => ({ sourceSystem: OBLIGATION_SOURCE_SYSTEM, obligationReference: reference });
  switch (fact.kind) {
    case 'revoke':
      return { type: 'revoke', consent: 1, occurredAt: instant(fact.at) };
    case 'register':
      return {
        type: 'registerExtension',
        consent: 1,
        creditExtensionId: actionId.extension(fact.reference),
        customerTenantId: CUSTOMERS[0],
        objectiveCode: '02',
        creditOperationReference: fact.reference,
        creditGrantedAt: instant(fact.at),
        sourceReference: `loan-${fact.reference}`,
      };
    case 'end':
      return {
        type: 'endExtension',
        consent: 1,
        creditExtensionId: actionId.extension(fact.reference),
        endReason: fact.endReason,
        ...(fact.supersededBy === null ? {} : { supersededByObligationReference: fact.supersededBy }),
        occurredAt: instant(fact.at),
      };
    case 'annulEnd':
    case 'annulExtension':
      return { type: fact.kind === 'annulEnd' ? 'annulExtensionEnd' : 'annulExtension', consent: 1, creditExtensionId: actionId.extension(fact.reference) };
    case 'bind':
      return {
        type: 'bind',
        bindingId: actionId.binding(i),
        obligation: obligation(fact.reference),
        kind: fact.toConsent ? 'consent' : 'legacy_pre_redec',
        consent: fact.toConsent ? 1 : null,
        obligationGrantedAt: instant(fact.at),
      };
  }
}

/** One order's run: each fact's answer, both sides, and the trace. */
interface OrderRun {
  answers: Answer[];
  /** The answers of the fresh decisions taken at the end. */
  decisions: Answer[];
  model: ReferenceModel;
  system: LifecycleSystem;
  lines: string[];
  failure: string | null;
}

function runOrder(scenario: Scenario, order: readonly number[], clock: Clock): OrderRun {
  const { instant, arrivals, end } = timeline(scenario);
  const { grantedAt } = scenario;
  const sides = { model: new ReferenceModel(), system: new LifecycleSystem(), clock, accesses: new Map<string, AccessLogEntry>() };
  const run: OrderRun = { answers: new Array(scenario.facts.length), decisions: [], model: sides.model, system: sides.system, lines: [], failure: null };
  const grant: Action = { type: 'grant', consent: 1, customerId: CUSTOMERS[0], grantedAt, initialAccessValidUntil: initialAccessValidUntil(grantedAt, calendar) };
  const steps: Array<{ action: Action; at: number; fact: number | 'grant' | 'probe' }> = [
    { action: grant, at: grantedAt + MINUTE, fact: 'grant' },
    ...order.map((i, n) => ({ action: actionOf(scenario.facts[i], i, instant), at: arrivals[n], fact: i })),
    ...probes().map((action) => ({ action, at: end, fact: 'probe' as const })),
  ];
  for (const { action, at, fact } of steps) {
    const { answer, failure } = applyToBoth(sides, action, at);
    if (typeof fact === 'number') run.answers[fact] = answer;
    if (fact === 'probe') run.decisions.push(answer);
    run.lines.push(`${clock.at(at)}  ${typeof fact === 'number' ? `#${fact} ` : ''}${describe(action, clock)}  → ${clock.answer(answer)}`);
    if (failure) {
      run.failure = failure;
      break;
    }
  }
  return run;
}

/** A fresh decision of each kind, at the end: the decisions the facts lead to. */
function probes(): Action[] {
  const obligation = (reference: string) => ({ sourceSystem: OBLIGATION_SOURCE_SYSTEM, obligationReference: reference });
  return [
    { type: 'authorize', redecAccessId: 'probe-window', consent: 1, mode: { consentAuthorizationMode: 'initial_window' }, obligation: obligation('op-1'), objectiveCode: '02', assertedAt: 0 },
    ...REFERENCES.map(
      (reference): Action => ({
        type: 'authorize',
        redecAccessId: `probe-${reference}`,
        consent: 1,
        mode: { consentAuthorizationMode: 'credit_lifecycle_extension', accessPurpose: 'manage_existing_obligation' },
        obligation: obligation(reference),
        objectiveCode: '02',
        assertedAt: 0,
      }),
    ),
  ];
}

/** What the bank and an auditor observe at the end, without the instants at which the service learned each fact. */
function finalAnswers(run: OrderRun, at: number) {
  const read = run.system.read(1, at)!;
  return {
    status: read.status,
    revocation: read.revocation && { revokedAt: read.revocation.revokedAt, effective: read.revocation.effective, effectiveAt: read.revocation.effectiveAt },
    retentionUntil: read.retentionUntil,
    retentionBasis: read.retentionBasis,
    keptAlive: read.creditExtensions
      .filter((x) => x.effective)
      .map(({ creditOperationReference, creditGrantedAt, status, endReason, endedAt, supersededByObligationReference }) => ({ creditOperationReference, creditGrantedAt, status, endReason, endedAt, supersededByObligationReference })),
    lookups: OBLIGATION_POOL.map((o) => run.system.lookup(o)),
    decisions: run.decisions,
  };
}

/** The facts one order recorded and the other refused, that still have an effect where they were recorded. */
function factsTheOtherOrderLost(scenario: Scenario, recorded: OrderRun, other: OrderRun): number[] {
  return scenario.facts.flatMap((fact, i) => {
    if (!recorded.answers[i]?.accepted || other.answers[i]?.accepted) return [];
    if (fact.kind === 'bind') return recorded.model.bindingClaimsNothing(actionId.binding(i)) ? [] : [i];
    if (fact.kind === 'revoke') return [i];
    return recorded.model.extensionKeepsNothing(actionId.extension(fact.reference)) ? [] : [i];
  });
}

/** `acceptedDifferently`: how many facts one order recorded and the other refused, the cases the property is about. */
export type Outcome = { compared: true; failure: string | null; lines: string[]; acceptedDifferently: number } | { compared: false };

/** Runs the scenario in its two orders and compares them; a failure names what differed and prints both runs. */
export function runScenario(scenario: Scenario): Outcome {
  const clock = new Clock(scenario.grantedAt);
  const orders = scenario.priorities.map((p) => arrivalOrder(scenario.facts, p));
  const [a, b] = orders.map((order) => runOrder(scenario, order, clock));
  const header = [
    `grant at ${clock.at(scenario.grantedAt)} (${clock.localDay(scenario.grantedAt)}), window until ${clock.at(timeline(scenario).validUntil)}`,
    ...scenario.facts.map((f, i) => `fact #${i}: ${JSON.stringify(f, (key, v) => (key === 'at' ? clock.at(timeline(scenario).instant(v as number)) : v))}`),
  ];
  const acceptedDifferently = scenario.facts.filter((_, i) => a.answers[i]?.accepted !== b.answers[i]?.accepted).length;
  const print = (failure: string) => ({ compared: true as const, acceptedDifferently, failure, lines: [...header, '', `order A ${orders[0].join(',')}:`, ...a.lines, '', `order B ${orders[1].join(',')}:`, ...b.lines] });
  if (a.failure) return print(`order A: ${a.failure}`);
  if (b.failure) return print(`order B: ${b.failure}`);
  if (factsTheOtherOrderLost(scenario, a, b).length > 0 || factsTheOtherOrderLost(scenario, b, a).length > 0) return { compared: false };
  const at = timeline(scenario).end;
  const [answersA, answersB] = [finalAnswers(a, at), finalAnswers(b, at)];
  if (isDeepStrictEqual(answersA, answersB)) return { compared: true, failure: null, lines: [], acceptedDifferently };
  const differing = (Object.keys(answersA) as Array<keyof typeof answersA>).filter((k) => !isDeepStrictEqual(answersA[k], answersB[k]));
  return print(`the two orders answer differently: ${differing.map((k) => `${k}\n    A: ${JSON.stringify(answersA[k])}\n    B: ${JSON.stringify(answersB[k])}`).join('\n  ')}`);
}

function describe(action: Action, clock: Clock): string {
  return JSON.stringify(action, (key, v) => (typeof v === 'number' && v > 1_000_000_000_000 ? clock.at(v) : v));
}
