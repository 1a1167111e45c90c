import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface Block {
  fence: number;
  language: string;
  kind: 'main' | 'no-run' | 'own-ledger' | null;
  text: string;
}
interface WalkThroughBlocks {
  fencedBlocks(markdown: string, file?: string): Block[];
  shellBlocks(markdown: string, file: string): Block[];
  script(markdown: string, file: string, kind?: string): string;
}
// The same reading of the docs as scripts/walk-through.sh's (plain JavaScript, run by node there).
const walkThrough = require('../scripts/walk-through-blocks.js') as WalkThroughBlocks;

const ROOT = join(__dirname, '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The docs scripts/walk-through.sh walks, from its WALKS list. */
function walkedDocs(): string[] {
  const list = /^WALKS=\(\n([\s\S]*?)\n\)/m.exec(read('scripts/walk-through.sh'));
  if (!list) throw new Error('scripts/walk-through.sh has no WALKS=( ... ) list');
  return [...new Set(list[1].split('\n').flatMap((line) => line.trim().replace(/^'|'$/g, '').split(/\s+/)))];
}

/** README.md and every page of docs/ (not the decision records, which quote history). */
function everyDoc(): string[] {
  const pages = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
  return ['README.md', ...pages.map((name) => `docs/${name}`)];
}

/** The blocks of `file` that a walk would run. */
function runnable(file: string): Block[] {
  return walkThrough.fencedBlocks(read(file), file).filter((block) => block.language === 'sh' && block.kind !== 'no-run');
}

// `npm run walk-through` (scripts/walk-through.sh, run by .ci/run after npm test) runs the docs'
// walk-throughs against the service; this suite keeps, within npm test, the rules that make them
// runnable anywhere (docs/decisions/0063-docs-that-run.md).
describe('the docs that npm run walk-through runs', () => {
  it('walks the README and the curl walk-throughs, each readable as the script reads it and saying that it runs', () => {
    const docs = walkedDocs();
    expect(docs).toEqual(expect.arrayContaining(['README.md', 'docs/redec-capture.md', 'docs/redec-lifecycle.md', 'docs/regulatory-reports.md']));
    for (const doc of docs) {
      const blocks = walkThrough.shellBlocks(read(doc), doc);
      expect({ doc, runs: blocks.some((block) => block.kind === 'main') }).toEqual({ doc, runs: true });
      expect({ doc, says: read(doc).replace(/\s+/g, ' ').includes('npm run walk-through') }).toEqual({ doc, says: true });
    }
  });

  it('runs no uuidgen, no fixed local port and no BASE of its own in any runnable block: BASE is exported once, by the README', () => {
    const offending: string[] = [];
    for (const doc of everyDoc()) {
      for (const block of runnable(doc)) {
        block.text.split('\n').forEach((line, offset) => {
          const where = `${doc}:${block.fence + 1 + offset}: ${line.trim()}`;
          if (/\buuidgen\b/.test(line)) offending.push(`${where} (uuidgen is not installed everywhere: node -p 'crypto.randomUUID()')`);
          if (/(127\.0\.0\.1|localhost):3000\b/.test(line)) offending.push(`${where} (a fixed port: $BASE)`);
          if (/^\s*(export\s+)?BASE=/.test(line) && !(doc === 'README.md' && line === 'export BASE=http://127.0.0.1:${PORT:-3000}')) {
            offending.push(`${where} (BASE is the README's)`);
          }
        });
      }
    }
    expect(offending).toEqual([]);
    expect(runnable('README.md').filter((block) => block.text.includes('export BASE='))).toHaveLength(1);
  });

  it('fails a walk when the service answers an error: every curl that runs has -f, or looks for the refusal it shows with grep', () => {
    const offending: string[] = [];
    for (const doc of walkedDocs()) {
      for (const block of runnable(doc)) {
        const lines = block.text.split('\n');
        lines.forEach((line, offset) => {
          if (/^\s*#/.test(line) || !/(^|[|;&(]|\$\()\s*curl\s/.test(line)) return;
          const fails = /\bcurl\s+(-[a-zA-Z]*f[a-zA-Z]*|--fail|--fail-with-body)(\s|$)/.test(line);
          // A refusal shown on purpose: curl without -f, its command piped to grep before the next curl.
          const rest = lines.slice(offset).join('\n');
          const next = rest.slice(line.length).search(/(^|[|;&(]|\$\()\s*curl\s/m);
          const greps = /\|\s*grep\s/.test(next < 0 ? rest : rest.slice(0, line.length + next));
          if (!fails && !greps) offending.push(`${doc}:${block.fence + 1 + offset}: ${line.trim()}`);
        });
      }
    }
    expect(offending).toEqual([]);
  });

  it('reads blocks by their info string: sh runs, sh no-run never, sh own-ledger apart, bash is refused, and line numbers stay the doc\'s', () => {
    const markdown = [
      '# A doc',
      '```sh',
      'echo main',
      '```',
      '```sh no-run',
      'npm ci',
      '```',
      '- a step in a list:',
      '  ```sh own-ledger',
      '  echo apart',
      '  ```',
      '```json',
      '{ "echo": "never" }',
      '```',
    ].join('\n');
    expect(walkThrough.script(markdown, 'a.md').split('\n')).toEqual(['', "WALK_STEP='a.md:2'", 'echo main', '', '', '', '', '', '', '', '', '', '', '', '']);
    expect(walkThrough.script(markdown, 'a.md', 'own-ledger').split('\n')[9]).toBe('echo apart');
    expect(() => walkThrough.script('```bash\necho\n```\n', 'b.md')).toThrow(/b\.md:1: .*```sh/);
    expect(() => walkThrough.script('```sh skip\necho\n```\n', 'c.md')).toThrow(/c\.md:1: .*no-run or own-ledger/);
  });
});
