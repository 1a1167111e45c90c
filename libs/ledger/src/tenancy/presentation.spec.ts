import { refusalOf } from '@ledger/platform/testing';
import { TenantPresentation, checkPresentation, contrastRatio } from './presentation';

const presentation = (overrides: Partial<TenantPresentation> = {}): TenantPresentation => ({
  displayName: 'Banco Ejemplo',
  logo: null,
  accentColor: '#0B3D91',
  terms: { objective: { '02': 'Renegociar un crédito vigente' } },
  ...overrides,
});

describe('contrastRatio (WCAG 2.x)', () => {
  it('gives the extremes and the published figures', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#ffffff')).toBeCloseTo(1, 5);
    // #767676 is the lightest grey with 4.5:1 on white; #777777 falls just short.
    expect(contrastRatio('#767676', '#ffffff')).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio('#777777', '#ffffff')).toBeLessThan(4.5);
    expect(contrastRatio('#ffffff', '#767676')).toBe(contrastRatio('#767676', '#ffffff'));
  });
});

describe('checkPresentation', () => {
  it('keeps a presentation fit to show, its colour in lower case and its words trimmed', () => {
    expect(checkPresentation(presentation({ displayName: '  Banco Ejemplo ', terms: { finality: { '2': ' Evaluar su solicitud de crédito ' } } }))).toEqual({
      displayName: 'Banco Ejemplo',
      logo: null,
      accentColor: '#0b3d91',
      terms: { finality: { '2': 'Evaluar su solicitud de crédito' } },
    });
  });

  it('takes a kind sent as null as one with no meanings, as an optional field\'s "none"', () => {
    const terms = { finality: { '2': 'Evaluar su solicitud de crédito' }, objective: null } as unknown as TenantPresentation['terms'];
    expect(checkPresentation(presentation({ terms })).terms).toEqual({ finality: { '2': 'Evaluar su solicitud de crédito' } });
  });

  it('refuses a colour that white text on it, or it as text on white, could not be read in (under 4.5:1)', () => {
    const error = refusalOf(() => checkPresentation(presentation({ accentColor: '#7a9cd6' })));
    expect(error.errors).toEqual([{ field: 'accentColor', reason: 'insufficient_contrast' }]);
  });

  it.each(['0b3d91', '#0b3d9', '#0b3d911', 'navy', '#0g3d91'])('refuses %j, which is not #rrggbb', (accentColor) => {
    expect(refusalOf(() => checkPresentation(presentation({ accentColor }))).errors).toEqual([{ field: 'accentColor', reason: 'invalid_color' }]);
  });

  it('refuses every field not fit to show at once, each by its path', () => {
    const error = refusalOf(() =>
      checkPresentation(
        presentation({
          displayName: ' ',
          terms: { objective: { '02': '', '03': 'x'.repeat(301), '04': 'línea\nnueva' }, medium: { '': 'Documento' }, ...({ purpose: { a: 'b' } } as object) },
        }),
      ),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.errors).toEqual([
      { field: 'displayName', reason: 'invalid_length' },
      { field: 'terms.objective.02', reason: 'invalid_length' },
      { field: 'terms.objective.03', reason: 'invalid_length' },
      { field: 'terms.objective.04', reason: 'control_character' },
      { field: 'terms.medium.', reason: 'invalid_code' },
      { field: 'terms.purpose', reason: 'unknown_property' },
    ]);
  });
});

describe('checkPresentation of a logo', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);
  const svg = Buffer.from('<?xml version="1.0"?>\n<!-- logo -->\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');

  it.each([
    ['a PNG', 'image/png' as const, png],
    ['a JPEG', 'image/jpeg' as const, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16])],
    ['an SVG after its XML declaration and a comment', 'image/svg+xml' as const, svg],
  ])('keeps %s', (_, mediaType, bytes) => {
    const logo = { mediaType, base64: bytes.toString('base64') };
    expect(checkPresentation(presentation({ logo })).logo).toEqual(logo);
  });

  it.each([
    ['a type a page does not show in an image', { mediaType: 'image/gif', base64: png.toString('base64') }, 'logo.mediaType', 'unsupported_media_type'],
    ['bytes of another type than named', { mediaType: 'image/jpeg', base64: png.toString('base64') }, 'logo.base64', 'content_does_not_match_media_type'],
    ['an HTML page named SVG', { mediaType: 'image/svg+xml', base64: Buffer.from('<html><svg></svg></html>').toString('base64') }, 'logo.base64', 'content_does_not_match_media_type'],
    ['what is not base64', { mediaType: 'image/png', base64: 'iVBOR w0K' }, 'logo.base64', 'invalid_base64'],
    ['more than 32 KiB', { mediaType: 'image/png', base64: Buffer.concat([png, Buffer.alloc(32 * 1024)]).toString('base64') }, 'logo.base64', 'too_large'],
  ])('refuses %s', (_, logo, field, reason) => {
    expect(refusalOf(() => checkPresentation(presentation({ logo: logo as TenantPresentation['logo'] }))).errors).toEqual([{ field, reason }]);
  });
});
