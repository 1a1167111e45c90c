import { BASELINE_PROFILE } from '../profiles/profile-catalog';
import { BASELINE_TERMS, ReadableTerms, unexplainedCodes } from './readable-terms';

const redec = { finalityCode: '2', objectiveCodes: ['02', '03'], scopes: [{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }] };

describe('ReadableTerms', () => {
  it("knows the service's own words: its channels, the baseline's media and the data category of the interface", () => {
    const terms = new ReadableTerms();
    expect(terms.meaningOf('channel', 'digital')).toBe('En línea');
    expect(terms.meaningOf('medium', BASELINE_PROFILE.mediumCodes.audio_recording)).toBe('Grabación de voz');
    expect(terms.meaningOf('dataCategory', 'redec.consolidated_debt_record')).toMatch(/Registro de Deuda Consolidada/);
  });

  it("guesses no purpose or objective: the regulator's catalogues are the bank's to state", () => {
    expect(BASELINE_TERMS.finality).toEqual({});
    expect(BASELINE_TERMS.objective).toEqual({});
    expect(new ReadableTerms().meaningOf('objective', '02')).toBeNull();
  });

  it("takes the bank's meaning where it gives one, over the baseline's too", () => {
    const terms = new ReadableTerms({ objective: { '02': 'Renegociar un crédito vigente' }, channel: { digital: 'Banca en línea' } });
    expect(terms.meaningOf('objective', '02')).toBe('Renegociar un crédito vigente');
    expect(terms.meaningOf('channel', 'digital')).toBe('Banca en línea');
    expect(terms.meaningOf('channel', 'phone')).toBe('Por teléfono');
  });

  it('finds no meaning in what every object has', () => {
    expect(new ReadableTerms({ objective: {} }).meaningOf('objective', 'constructor')).toBeNull();
    expect(new ReadableTerms().meaningOf('channel', 'toString')).toBeNull();
  });
});

describe('unexplainedCodes', () => {
  it('names each code of the configuration a page would show without a meaning, where the configuration has it', () => {
    expect(unexplainedCodes(new ReadableTerms({ objective: { '02': 'Renegociar un crédito vigente' } }), redec)).toEqual([
      { field: 'redec.finalityCode', kind: 'finality', code: '2' },
      { field: 'redec.objectiveCodes[1]', kind: 'objective', code: '03' },
    ]);
  });

  it('is empty once every code has a meaning', () => {
    const terms = new ReadableTerms({ finality: { '2': 'Evaluar su solicitud de crédito' }, objective: { '02': 'Otorgar un crédito', '03': 'Renegociar un crédito' } });
    expect(unexplainedCodes(terms, redec)).toEqual([]);
  });
});
