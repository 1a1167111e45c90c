import { FieldError, validationError } from '@ledger/platform';

/** The kinds of code a data subject may be shown, each with its own table of meanings. */
export const TERM_KINDS = ['finality', 'objective', 'dataCategory', 'medium', 'channel'] as const;
export type TermKind = (typeof TERM_KINDS)[number];

/** What the tenant's codes mean, in words a person reads (Spanish), by kind and then by code. */
export type TermMeanings = Partial<Record<TermKind, Record<string, string>>>;

/**
 * How the bank appears to the people it sends to the service's pages: its
 * name, its colour, and what its codes mean. A page never shows a person a
 * code without its meaning (docs/decisions/0075-readable-terms.md).
 */
export interface TenantPresentation {
  /** The bank's name as its customers know it. */
  displayName: string;
  /** `#rrggbb`, used for the buttons' fill and for text on white: at least 4.5:1 against white. */
  accentColor: string;
  terms: TermMeanings;
}

/** WCAG 2.x: normal text needs 4.5:1 against its background (success criterion 1.4.3, AA). */
export const MIN_TEXT_CONTRAST = 4.5;
const COLOR = /^#[0-9a-f]{6}$/;
const MAX_DISPLAY_NAME = 100;
const MAX_CODE = 64;
const MAX_MEANING = 300;
const MAX_TERMS_PER_KIND = 200;
/** Control characters and the line and paragraph separators: nothing a single line of text for a person holds. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** The contrast ratio of two `#rrggbb` colours (WCAG 2.x relative luminance). */
export function contrastRatio(a: string, b: string): number {
  const [lighter, darker] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (lighter + 0.05) / (darker + 0.05);
}

function relativeLuminance(color: string): number {
  const channel = (offset: number) => {
    const value = parseInt(color.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** The presentation as it is to be recorded (the colour in lower case), or a VALIDATION_ERROR naming every field that is not fit to show. */
export function checkPresentation(presentation: TenantPresentation): TenantPresentation {
  const errors: FieldError[] = [];
  const displayName = presentation.displayName.trim();
  if (displayName.length === 0 || displayName.length > MAX_DISPLAY_NAME) errors.push({ field: 'displayName', reason: 'invalid_length' });
  else if (CONTROL.test(displayName)) errors.push({ field: 'displayName', reason: 'control_character' });
  const accentColor = presentation.accentColor.toLowerCase();
  if (!COLOR.test(accentColor)) errors.push({ field: 'accentColor', reason: 'invalid_color' });
  else if (contrastRatio(accentColor, '#ffffff') < MIN_TEXT_CONTRAST) errors.push({ field: 'accentColor', reason: 'insufficient_contrast' });
  const terms: TermMeanings = {};
  for (const [kind, table] of Object.entries(presentation.terms)) {
    // A kind left out (or sent as undefined by a DTO's declared field) has no entries.
    if (table === undefined) continue;
    if (!(TERM_KINDS as readonly string[]).includes(kind)) {
      errors.push({ field: `terms.${kind}`, reason: 'unknown_property' });
      continue;
    }
    const entries = Object.entries(table);
    if (entries.length > MAX_TERMS_PER_KIND) errors.push({ field: `terms.${kind}`, reason: 'too_many_items' });
    const kept: Record<string, string> = {};
    for (const [code, meaning] of entries) {
      const field = `terms.${kind}.${code}`;
      if (code.length === 0 || code.length > MAX_CODE || CONTROL.test(code)) errors.push({ field, reason: 'invalid_code' });
      else if (typeof meaning !== 'string' || meaning.trim().length === 0 || meaning.length > MAX_MEANING) errors.push({ field, reason: 'invalid_length' });
      else if (CONTROL.test(meaning)) errors.push({ field, reason: 'control_character' });
      else kept[code] = meaning.trim();
    }
    terms[kind as TermKind] = kept;
  }
  if (errors.length > 0) throw validationError(`The presentation has ${errors.length} field(s) not fit to show a person.`, { reason: errors[0].reason, errors });
  return { displayName, accentColor, terms };
}
