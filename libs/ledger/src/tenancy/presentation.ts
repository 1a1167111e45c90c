import { FieldError, validationError } from '@ledger/platform';

/** The kinds of code a data subject may be shown, each with its own table of meanings. */
export const TERM_KINDS = ['finality', 'objective', 'dataCategory', 'medium', 'channel', 'authenticationMethod'] as const;
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
  /** Shown beside the name; null for none. */
  logo: TenantLogo | null;
  /** `#rrggbb`, used for the buttons' fill and for text on white: at least 4.5:1 against white. */
  accentColor: string;
  terms: TermMeanings;
}

/** A small image, kept in the tenant's facts and written into the page itself, so the page loads nothing from anywhere. */
export interface TenantLogo {
  mediaType: LogoMediaType;
  /** The image's bytes, base64. */
  base64: string;
}

export const LOGO_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/svg+xml'] as const;
export type LogoMediaType = (typeof LOGO_MEDIA_TYPES)[number];
/** Small enough that the presentation, sent as JSON, stays under the API's 64 KiB body limit. */
export const MAX_LOGO_BYTES = 32 * 1024;

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
    // A kind left out, sent as undefined by a DTO's declared field, or sent as null (an optional field's "none") has no entries.
    if (table === undefined || table === null) continue;
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
  const logo = presentation.logo ?? null;
  if (logo !== null) {
    const reason = logoRefusal(logo);
    if (reason) errors.push({ field: reason === 'unsupported_media_type' ? 'logo.mediaType' : 'logo.base64', reason });
  }
  if (errors.length > 0) throw validationError(`The presentation has ${errors.length} field(s) not fit to show a person.`, { reason: errors[0].reason, errors });
  return { displayName, logo, accentColor, terms };
}

/** Why the logo cannot be shown, or null: its type is one a browser shows in an image, and its bytes are that type's, whole base64, at most MAX_LOGO_BYTES. */
function logoRefusal({ mediaType, base64 }: TenantLogo): string | null {
  if (!(LOGO_MEDIA_TYPES as readonly string[]).includes(mediaType)) return 'unsupported_media_type';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0) return 'invalid_base64';
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length > MAX_LOGO_BYTES) return 'too_large';
  return startsAs(mediaType, bytes) ? null : 'content_does_not_match_media_type';
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function startsAs(mediaType: LogoMediaType, bytes: Buffer): boolean {
  switch (mediaType) {
    case 'image/png':
      return bytes.subarray(0, 8).equals(PNG_SIGNATURE);
    case 'image/jpeg':
      return bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
    case 'image/svg+xml': {
      // An SVG document: an XML declaration or comments may come first, then the svg element.
      const text = bytes.toString('utf8').replace(/^\uFEFF/, '').trimStart();
      return /^(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<svg[\s>]/.test(text);
    }
  }
}
