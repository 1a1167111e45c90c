#!/usr/bin/env node
// `npm start`, `npm run ledger` and `npm run bench` run the compiled output.
// Build only when a source file is newer than the last build, so a fresh
// clone works with `npm ci && npm start` and repeated starts stay fast.
const { execSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');

// What the benchmarks write (bench/results) is output, not source: counting it rebuilt before every run.
const outputs = new Set([path.join(root, 'bench', 'results')]);

function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = outputs.has(full) ? newest : Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts') || entry.name.endsWith('.json')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

// `npm run build` stamps its output too (the postbuild script), so a build made by hand is not made again.
if (process.argv.includes('--stamp')) {
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(stamp, new Date().toISOString());
  process.exit(0);
}

const sources = ['apps', 'libs', 'bench', 'fuzz'].map((d) => path.join(root, d)).filter((d) => fs.existsSync(d));
const configs = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((f) => fs.statSync(path.join(root, f)).mtimeMs);
const newest = Math.max(...sources.map(newestSource), ...configs);
const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;

if (newest > built) {
  process.stderr.write('building (sources changed since the last build)...\n');
  execSync('npm run --silent build', { cwd: root, stdio: ['ignore', process.stderr, 'inherit'] });
}
