import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Go programs over golang.org/x/mod/sumdb, from Debian's golang-go and
 * golang-golang-x-mod-dev, built offline (GOPATH mode over
 * /usr/share/gocode): an implementation nobody here wrote, to check the
 * ledger's against.
 */
const GO_ENV = { ...process.env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOCACHE: join(tmpdir(), 'ledger-go-cache') };

/** Builds the program in `test/<name>/` and returns its path; once per suite (beforeAll). */
export function buildGoProgram(name: string): string {
  const program = join(mkdtempSync(join(tmpdir(), `${name}-`)), name);
  execFileSync('go', ['build', '-o', program, '.'], { cwd: join(__dirname, name), env: GO_ENV });
  return program;
}
