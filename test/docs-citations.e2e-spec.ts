import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// Issue 31: the interface, the contract and the architecture are in docs/
// (docs/reference/, docs/architecture.md), and every citation points there.
// A citation of a file the repository does not hold, or of a page or a
// section that is not there, sends a reader nowhere: this suite finds both
// in every tracked text file.

const ROOT = join(__dirname, '..');
/** This file names what it forbids. */
const SELF = relative(ROOT, __filename);

/** Files and section numbers of documents kept outside the repository. */
const OUTSIDE_CITATIONS: ReadonlyArray<[RegExp, string]> = [
  [/\b(?:CONTRACT|DESIGN|STYLE)\.md\b/, 'names a file the repository does not hold'],
  [/consent-interface\.md/, 'names a file the repository does not hold'],
  [/\b(?:CONTRACT|DESIGN)\b/, 'cites a document the repository does not hold'],
  [/\bspec(?:'s)?\s*(?:(?:rules?|sections?)\s*)?§?\s*\d/i, 'cites a section of a specification the repository does not hold'],
  [/\bthe spec\b/i, 'cites a specification the repository does not hold'],
];

/**
 * `docs/….md` or the top-level README.md, then an optional `#anchor`, or a
 * section named in quotes after a comma (in code, JSON or a comment, the name
 * maybe wrapped).
 */
const DOCS_PATH = /(?<![\w./-])((?:docs\/[\w./-]+?|README)\.md)(?:#([\w-]+)|`?,\s*(?:(?:\*|\/\/)\s*)?\\?"([^"\\]{1,160})\\?")?/g;
/** A section's name as cited across a wrapped line of prose or of a comment. */
const unwrapped = (name: string) => name.replace(/\s*\n\s*(?:\*|\/\/|#)?\s*/g, ' ');
/** A markdown link or image (its text maybe wrapped over lines): its target, with an optional title. */
const MARKDOWN_LINK = /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const FENCE = /^\s*(```|~~~)/;

interface Headings {
  slugs: Set<string>;
  texts: Set<string>;
}

const trackedFiles = (): string[] =>
  execFileSync('git', ['ls-files', '-z'], { cwd: ROOT })
    .toString()
    .split('\0')
    .filter((file) => file !== '' && file !== 'package-lock.json' && file !== SELF && existsSync(join(ROOT, file)));

function textOf(file: string): string | null {
  const bytes = readFileSync(join(ROOT, file));
  return bytes.subarray(0, 8000).includes(0) ? null : bytes.toString('utf8');
}

/** A markdown file's lines with fenced code blanked, so that neither a `#` comment nor a sample link in a code block counts. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (FENCE.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, each space a hyphen; a repeated one gets -1, -2, … */
function headingsOf(markdown: string): Headings {
  const slugs = new Set<string>();
  const texts = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
    texts.add(text);
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return { slugs, texts };
}

const headingsCache = new Map<string, Headings>();
function headingsOfFile(path: string): Headings {
  let headings = headingsCache.get(path);
  if (!headings) {
    headings = headingsOf(readFileSync(path, 'utf8'));
    headingsCache.set(path, headings);
  }
  return headings;
}

/** What is wrong with citing `target` (absolute) at `anchor` or at the section titled `section`; null when it is there. */
function missing(target: string, anchor: string | undefined, section: string | undefined): string | null {
  if (!existsSync(target)) return 'no such file';
  if (!target.endsWith('.md')) return null;
  const { slugs, texts } = headingsOfFile(target);
  if (anchor !== undefined && !slugs.has(anchor)) return `no heading with the anchor #${anchor}`;
  if (section !== undefined && !texts.has(section)) return `no heading "${section}"`;
  return null;
}

const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length;

function offensesIn(file: string, text: string): string[] {
  const offenses: string[] = [];
  text.split('\n').forEach((line, index) => {
    const outside = OUTSIDE_CITATIONS.find(([pattern]) => pattern.test(line));
    if (outside) offenses.push(`${file}:${index + 1}: ${outside[1]}: ${line.trim()}`);
  });

  for (const match of text.matchAll(DOCS_PATH)) {
    const [cited, path, anchor, section] = match;
    const problem = missing(join(ROOT, path), anchor, section === undefined ? undefined : unwrapped(section));
    if (problem) offenses.push(`${file}:${lineAt(text, match.index)}: ${problem}: ${cited.replace(/\s+/g, ' ')}`);
  }

  if (file.endsWith('.md')) {
    // Code spans blanked to their length, so that indexes keep their lines.
    const prose = proseLines(text)
      .join('\n')
      .replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
    for (const match of prose.matchAll(MARKDOWN_LINK)) {
      const target = match[1];
      if (/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(target)) continue;
      const [path, anchor] = target.split('#', 2);
      const absolute = path === '' ? join(ROOT, file) : path.startsWith('/') ? join(ROOT, path) : resolve(ROOT, dirname(file), decodeURI(path));
      const problem = missing(absolute, anchor || undefined, undefined);
      if (problem) offenses.push(`${file}:${lineAt(prose, match.index + match[0].lastIndexOf(target))}: ${problem}: ${target}`);
    }
  }
  return offenses;
}

describe('citations in the repository', () => {
  const files = trackedFiles()
    .map((file) => ({ file, text: textOf(file) }))
    .filter((entry): entry is { file: string; text: string } => entry.text !== null);

  it('reads the tracked text files', () => {
    expect(files.map(({ file }) => file)).toEqual(expect.arrayContaining(['README.md', 'docs/reference/README.md', 'docs/architecture.md', 'openapi/openapi.json']));
  });

  it('cite no file, section or specification kept outside the repository, and every page and section they cite is there', () => {
    expect(files.flatMap(({ file, text }) => offensesIn(file, text))).toEqual([]);
  });
});

describe('the citation checker', () => {
  it("finds GitHub's anchors, repeated headings numbered, code blocks left out", () => {
    const { slugs, texts } = headingsOf(['# A page', '## 2. Keep a customer\'s data: legal holds', '## `grantedAt`', '## Notes', '## Notes', '```sh', '# not a heading', '```'].join('\n'));
    expect([...slugs]).toEqual(['a-page', '2-keep-a-customers-data-legal-holds', 'grantedat', 'notes', 'notes-1']);
    expect(texts.has('grantedAt')).toBe(true);
    expect(slugs.has('not-a-heading')).toBe(false);
  });

  it('reports a missing page, a missing anchor, a missing quoted section and an outside citation, each at its line', () => {
    const text = [
      'See docs/reference/no-such-page.md.',
      'See docs/reference/grants.md#no-such-anchor.',
      ' * (docs/reference/grants.md, "No such section")',
      '"description": "as docs/reference/grants.md, \\"No such section\\" says"',
      '// as spec 2.3 says, and README.md, "No such section"',
      '[ok](docs/reference/grants.md#timing-rules) and [broken](docs/reference/grants.md#nowhere)',
      'and [a link wrapped',
      'over two lines](no-such-page.md)',
    ].join('\n');
    expect(offensesIn('x.md', text).map((offense) => offense.split(': ').slice(0, 2).join(': '))).toEqual([
      'x.md:5: cites a section of a specification the repository does not hold',
      'x.md:1: no such file',
      'x.md:2: no heading with the anchor #no-such-anchor',
      'x.md:3: no heading "No such section"',
      'x.md:4: no heading "No such section"',
      'x.md:5: no heading "No such section"',
      'x.md:6: no heading with the anchor #nowhere',
      'x.md:6: no heading with the anchor #nowhere',
      'x.md:8: no such file',
    ]);
  });

  it('accepts a page and a section that are there, also a section named across a wrapped comment', () => {
    expect(offensesIn('y.ts', '// docs/reference/grants.md, "Timing rules"; docs/reference/grants.md#timing-rules; README.md, "Operator CLI"')).toEqual([]);
    expect(offensesIn('y.ts', ' * (docs/reference/grants.md, "The\n * initial access window")')).toEqual([]);
    expect(offensesIn('y.ts', ' * (docs/reference/grants.md, "The\n * initial window")')).toHaveLength(1);
  });
});
