import { randomUUID } from 'node:crypto';

/**
 * Fixtures shared by the REDEC end-to-end suites. Check digits are computed
 * here, independently of the code under test, so a broken RUT rule cannot
 * agree with itself.
 */
export function checkDigitOf(body: number): string {
  const digits = String(body);
  let sum = 0;
  let factor = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    sum += Number(digits[i]) * factor;
    factor = factor === 7 ? 2 : factor + 1;
  }
  const remainder = 11 - (sum % 11);
  return remainder === 11 ? '0' : remainder === 10 ? 'K' : String(remainder);
}

/** A valid RUT for a body: `12345678-5`. */
export const rutOf = (body: number): string => `${body}-${checkDigitOf(body)}`;

/** The REDEC block of a configuration under the baseline profile. */
export const REDEC_TERMS = {
  finalityCode: '2',
  objectiveCodes: ['02', '03'],
  scopes: [{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }],
  targets: ['Banco Ejemplo'],
  obligationSourceSystem: 'core-loans',
  regulatoryProfile: 'baseline',
};

/**
 * How the test tenants appear on the consent page: a page never shows a code
 * without its meaning, so every tenant the suites mint explains the codes
 * their configurations use (the data category is in the service's own table).
 */
export const TEST_PRESENTATION = {
  displayName: 'Banco de Prueba',
  logo: null,
  accentColor: '#0b3d91',
  terms: {
    finality: { '2': 'Evaluar si le otorgamos un crédito' },
    objective: { '02': 'Evaluar una solicitud de crédito nueva', '03': 'Evaluar la renegociación de un crédito vigente', '04': 'Evaluar el aumento de un cupo' },
  },
};

/** A publishable REDEC configuration (POST /v1/configurations) captured outside the service. */
export function redecConfiguration(overrides: { templateKey?: string; channel?: 'digital' | 'phone' | 'in_person'; redec?: Partial<typeof REDEC_TERMS> } = {}) {
  return {
    templateKey: overrides.templateKey ?? 'redec-credit-evaluation',
    title: 'Consulta al Registro de Deuda Consolidada',
    text: 'Autorizo a Banco Ejemplo a consultar mi información en el Registro de Deuda Consolidada.',
    channel: overrides.channel ?? 'digital',
    captureTiming: 'deferred_external',
    redec: { ...REDEC_TERMS, ...overrides.redec },
  };
}

/** An authorize request in the initial window, for what a redecConfiguration() consent grants, under a fresh sourceReference. */
export function initialWindowAccess(redecConsentId: string) {
  return {
    authorizationBasis: 'consent',
    consentAuthorizationMode: 'initial_window',
    redecConsentId,
    dataCategoryCode: 'redec.consolidated_debt_record',
    scopeId: 'redec-debt',
    objectiveCode: '02',
    reportingObligation: { status: 'none', sourceSystem: 'core-loans', sourceReference: `solicitud-${randomUUID()}`, assertedAt: Date.now() - 1_000 },
    sourceSystem: 'originacion',
    sourceReference: `acceso-${randomUUID()}`,
  };
}
