import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Reads docker/Dockerfile as Docker does (no registry here to build it): each
// base image must be fixed by digest, on Node 24, and the image must hold no
// benchmark, fuzzing or test code (decision 0044).
const DOCKERFILE = readFileSync(join(__dirname, '..', 'docker', 'Dockerfile'), 'utf8');
const COMPOSE = readFileSync(join(__dirname, '..', 'docker', 'compose.yml'), 'utf8');
const PINNED = /^[a-z0-9._/-]+:[A-Za-z0-9._-]+@sha256:[0-9a-f]{64}$/;

/** The instructions, continuation lines joined and comments dropped. */
function instructions(dockerfile: string): Array<{ keyword: string; args: string }> {
  return dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** Each stage's base image, with the ARG defaults declared before the first FROM substituted, and the instructions of the stage. */
function stages(dockerfile: string): Array<{ image: string; alias?: string; body: Array<{ keyword: string; args: string }> }> {
  const defaults = new Map<string, string>();
  const result: Array<{ image: string; alias?: string; body: Array<{ keyword: string; args: string }> }> = [];
  for (const instruction of instructions(dockerfile)) {
    if (instruction.keyword === 'ARG' && result.length === 0) {
      const [name, value] = instruction.args.split('=');
      if (value !== undefined) defaults.set(name, value);
    } else if (instruction.keyword === 'FROM') {
      const [reference, as, alias] = instruction.args.replace(/^--platform=\S+\s+/, '').split(/\s+/);
      const image = reference.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced: string, bare: string) => defaults.get(braced ?? bare) ?? '');
      result.push({ image, alias: as?.toUpperCase() === 'AS' ? alias : undefined, body: [] });
    } else if (result.length > 0) {
      result[result.length - 1].body.push(instruction);
    }
  }
  return result;
}

describe('docker/Dockerfile', () => {
  const all = stages(DOCKERFILE);
  const aliases = new Set(all.map((stage) => stage.alias).filter(Boolean));
  const bases = all.filter((stage) => !aliases.has(stage.image));

  it('names every base image by tag and by the sha256 digest of its index', () => {
    expect(bases.length).toBeGreaterThanOrEqual(2);
    for (const { image } of bases) expect(image).toMatch(PINNED);
  });

  it('builds and runs on Node.js 24', () => {
    for (const { image } of bases) expect(image).toMatch(/^node:24\.\d+\.\d+-bookworm-slim@/);
  });

  it('copies no benchmark, fuzzing or test sources into any stage', () => {
    const copied = all.flatMap(({ body }) =>
      body
        .filter(({ keyword, args }) => (keyword === 'COPY' || keyword === 'ADD') && !args.startsWith('--from='))
        .flatMap(({ args }) => args.split(/\s+/).filter((arg) => !arg.startsWith('--')).slice(0, -1)),
    );
    expect(copied.length).toBeGreaterThan(0);
    expect(copied.filter((source) => source === '.' || /^(\.\/)?(bench|fuzz|test)(\/|$)/.test(source))).toEqual([]);
  });

  it('takes only the built service into the runtime stage, and runs it as the unprivileged node user', () => {
    const runtime = all[all.length - 1].body;
    const taken = runtime.filter(({ keyword, args }) => keyword === 'COPY' && args.startsWith('--from=')).flatMap(({ args }) => args.split(/\s+/).slice(1, -1));
    expect(taken).toContain('/app/dist/apps');
    // Not the whole of /app or /app/dist, which would carry whatever the build stage compiled or held.
    expect(taken.filter((source) => /^\/app\/?$|^\/app\/dist\/?$|(bench|fuzz|test)/.test(source))).toEqual([]);
    expect(runtime.filter(({ keyword }) => keyword === 'USER').map(({ args }) => args)).toEqual(['node']);
  });
});

describe('docker/compose.yml', () => {
  it('pins every image it pulls by digest, but the EventStoreDB profile\'s, and runs the ledger from the image it builds', () => {
    const images = [...COMPOSE.matchAll(/^ {2}([\w-]+):\n(?:(?! {2}\S).*\n)*? {4}image: (\S+)$/gm)].map(([, service, image]) => ({ service, image }));
    expect(images.map(({ service }) => service)).toEqual(['postgres', 'redis', 'api-1', 'api-2', 'worker', 'eventstoredb', 'prometheus', 'grafana']);
    const pulled = images.filter(({ image }) => !image.startsWith('consent-ledger:'));
    expect(pulled.filter(({ service, image }) => service !== 'eventstoredb' && !PINNED.test(image))).toEqual([]);
    expect(pulled.map(({ service }) => service)).toEqual(['postgres', 'redis', 'eventstoredb', 'prometheus', 'grafana']);
  });
});
