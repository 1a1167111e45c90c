#!/usr/bin/env node
// The shell blocks of a Markdown walk-through, as `scripts/walk-through.sh`
// runs them (docs/decisions/0063-docs-that-run.md).
//
// A fenced block runs when its info string is `sh`:
//
//   ```sh              runs, in order, in the doc's own bash (set -euo pipefail)
//   ```sh no-run       shown, never run: a fragment, a command for production or
//                      another machine (docker, /etc), the service in the foreground
//   ```sh own-ledger   runs in a scratch ledger of its own, after the docs this
//                      one continues: a step that restarts the service with its
//                      clock shifted, which the rest of the walk must not see
//
// Output and other illustrative blocks take `json`, `text`, `http`, `cron` or
// no info string. In a walked doc a shell block is `sh`: `bash`, `shell`,
// `console` or `zsh` are refused, so that no one writes a step believing it runs.
//
//   node scripts/walk-through-blocks.js script FILE [main|own-ledger]
//       prints FILE with every line that does not run blanked, so that bash's
//       line numbers are the doc's
//   node scripts/walk-through-blocks.js where FILE LINE
//       names the section of the block that opens at line LINE
//   node scripts/walk-through-blocks.js has FILE own-ledger
//       exits 0 when FILE has a block of that kind
'use strict';

const { readFileSync } = require('node:fs');

const KINDS = new Map([
  ['', 'main'],
  ['no-run', 'no-run'],
  ['own-ledger', 'own-ledger'],
]);
const AMBIGUOUS = new Set(['bash', 'shell', 'console', 'zsh', 'shell-session']);

/**
 * Every fenced block of `markdown`: its 1-based first and last content lines,
 * language, kind (`main`, `no-run`, `own-ledger` for `sh`; null otherwise),
 * the heading it sits under and its text (indentation of the fence removed).
 */
function fencedBlocks(markdown, file = 'markdown') {
  const lines = markdown.split('\n');
  const blocks = [];
  let heading = '(before any heading)';
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`]*?)\s*$/.exec(lines[i]);
    if (!open) {
      const title = /^#{1,6}\s+(.*)$/.exec(lines[i]);
      if (title) heading = title[1];
      continue;
    }
    const [, indent, fence, info] = open;
    const [language = '', ...attributes] = info.split(/\s+/).filter(Boolean);
    const close = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end])) end += 1;
    if (end === lines.length) throw new Error(`${file}:${i + 1}: a fenced block that is never closed`);
    let kind = null;
    if (language === 'sh') {
      kind = KINDS.get(attributes.join(' '));
      if (!kind) throw new Error(`${file}:${i + 1}: \`\`\`sh takes nothing, no-run or own-ledger after it, not "${attributes.join(' ')}"`);
    }
    const text = lines
      .slice(i + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()))
      .join('\n');
    blocks.push({ fence: i + 1, first: i + 2, last: end, language, kind, heading, text });
    i = end;
  }
  return blocks;
}

/** The blocks that a walk through `file` runs or must refuse: `sh` ones, and the ambiguous shell languages. */
function shellBlocks(markdown, file) {
  const blocks = fencedBlocks(markdown, file);
  for (const block of blocks) {
    if (AMBIGUOUS.has(block.language)) {
      throw new Error(`${file}:${block.fence}: a walked doc's shell block is \`\`\`sh (or \`\`\`sh no-run), not \`\`\`${block.language}`);
    }
  }
  return blocks.filter((block) => block.language === 'sh');
}

/**
 * `markdown` with every line outside the blocks of `kind` blanked: bash's
 * LINENO is then the doc's line. Each block's opening fence line becomes
 * `WALK_STEP='<file>:<its line>'`, which names the block that failed where
 * bash's line number of a command spanning several lines is only near it.
 */
function script(markdown, file, kind = 'main') {
  const lines = markdown.split('\n').map(() => '');
  for (const block of shellBlocks(markdown, file)) {
    if (block.kind !== kind) continue;
    lines[block.fence - 1] = `WALK_STEP='${file}:${block.fence}'`;
    block.text.split('\n').forEach((line, offset) => {
      lines[block.first - 1 + offset] = line;
    });
  }
  return lines.join('\n') + '\n';
}

/** The step whose block opens at line `step` of `file`: its section and line. */
function where(markdown, file, step) {
  const block = fencedBlocks(markdown, file).find((b) => b.fence === step);
  return block ? `${file}, section "${block.heading}", the block at line ${block.fence}` : `${file}, line ${step}`;
}

module.exports = { fencedBlocks, shellBlocks, script };

if (require.main === module) {
  const [command, file, arg] = process.argv.slice(2);
  try {
    const markdown = readFileSync(file, 'utf8');
    if (command === 'script') process.stdout.write(script(markdown, file, arg || 'main'));
    else if (command === 'where') process.stdout.write(`${where(markdown, file, Number(arg))}\n`);
    else if (command === 'has') process.exitCode = shellBlocks(markdown, file).some((b) => b.kind === arg) ? 0 : 1;
    else throw new Error(`usage: walk-through-blocks.js script FILE [main|own-ledger] | where FILE LINE | has FILE KIND (not "${command}")`);
  } catch (error) {
    process.stderr.write(`walk-through: ${error.message}\n`);
    process.exitCode = 2;
  }
}
