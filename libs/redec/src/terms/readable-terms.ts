import { TermKind, TermMeanings } from '@ledger/ledger';
import type { RedecTerms } from '../configuration/configuration.events';
import { BASELINE_PROFILE } from '../profiles/profile-catalog';
import type { EvidenceKind } from '../consent/consent.events';

/** What each kind of evidence is, for a person: the medium a consent was given in. */
const EVIDENCE_MEDIUM: Record<EvidenceKind, string> = {
  electronic: 'Documento electrónico',
  audio_recording: 'Grabación de voz',
  physical_document: 'Documento en papel firmado',
};

/**
 * The meanings the service itself knows: the words of its own vocabulary
 * (channels, media, the data category the interface names) and the one
 * authentication method every Chilean knows by name. The regulator's
 * catalogues of purposes and objectives are the bank's to state, in its
 * presentation: the service does not guess what a code means.
 */
export const BASELINE_TERMS: Readonly<Record<TermKind, Readonly<Record<string, string>>>> = {
  finality: {},
  objective: {},
  dataCategory: { 'redec.consolidated_debt_record': 'Su información de deudas en el Registro de Deuda Consolidada (REDEC) de la Comisión para el Mercado Financiero' },
  medium: Object.fromEntries(Object.entries(BASELINE_PROFILE.mediumCodes).map(([kind, code]) => [code, EVIDENCE_MEDIUM[kind as EvidenceKind]])),
  channel: { digital: 'En línea', phone: 'Por teléfono', in_person: 'En persona, en una sucursal' },
  authenticationMethod: { clave_unica: 'ClaveÚnica' },
};

/** One table of meanings: the baseline's, extended (and where the bank says otherwise, overridden) by the tenant's. */
export class ReadableTerms {
  constructor(private readonly extension: TermMeanings = {}) {}

  /** The meaning of `code`, or null when neither table has one. */
  meaningOf(kind: TermKind, code: string): string | null {
    const own = this.extension[kind];
    if (own && Object.hasOwn(own, code)) return own[code];
    return Object.hasOwn(BASELINE_TERMS[kind], code) ? BASELINE_TERMS[kind][code] : null;
  }
}

/** A code a configuration would show a person that has no meaning in the table, named by where it is in the configuration. */
export interface UnexplainedCode {
  field: string;
  kind: TermKind;
  code: string;
}

/** The codes of a REDEC configuration's terms that a page would show without a meaning. */
export function unexplainedCodes(terms: ReadableTerms, redec: Pick<RedecTerms, 'finalityCode' | 'objectiveCodes' | 'scopes'>): UnexplainedCode[] {
  const shown: UnexplainedCode[] = [
    { field: 'redec.finalityCode', kind: 'finality', code: redec.finalityCode },
    ...redec.objectiveCodes.map((code, index) => ({ field: `redec.objectiveCodes[${index}]`, kind: 'objective' as const, code })),
    ...redec.scopes.map((scope, index) => ({ field: `redec.scopes[${index}].dataCategoryCode`, kind: 'dataCategory' as const, code: scope.dataCategoryCode })),
  ];
  return shown.filter(({ kind, code }) => terms.meaningOf(kind, code) === null);
}
