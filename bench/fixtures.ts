import { randomUUID } from 'node:crypto';
import { rutCheckDigit } from '@ledger/ledger';

/** What the benchmarks send to set a ledger up, written once for all of them. */

const MINUTE = 60_000;

/** The answer's body when it has the status the set-up needs; otherwise the run stops, naming the step. */
export function expectStatus(status: number, answer: { status: number; body: unknown }, what: string): Record<string, unknown> {
  if (answer.status !== status) throw new Error(`${what}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body as Record<string, unknown>;
}

/** A publishable REDEC configuration under the baseline profile (as test/support/redec-fixtures.ts has it). */
export function redecConfiguration(templateKey: string, channel: 'digital' | 'phone' = 'digital') {
  return {
    templateKey,
    title: 'Consulta al Registro de Deuda Consolidada',
    text: 'Autorizo a Banco Ejemplo a consultar mi información en el Registro de Deuda Consolidada.',
    channel,
    captureTiming: 'deferred_external',
    redec: {
      finalityCode: '2',
      objectiveCodes: ['02', '03'],
      scopes: [{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }],
      targets: ['Banco Ejemplo'],
      obligationSourceSystem: 'core-loans',
      regulatoryProfile: 'baseline',
    },
  };
}

/** A customer verified with Clave Única, whose RUT has the body `rutBody`. */
export function customerResolution(rutBody: number) {
  return {
    userReference: `cliente-${randomUUID()}`,
    identifiers: [
      {
        system: 'cl-sii',
        type: 'rut',
        value: `${rutBody}-${rutCheckDigit(String(rutBody))}`,
        verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - MINUTE },
      },
    ],
  };
}
