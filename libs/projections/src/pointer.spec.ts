import { nextStep } from './pointer';

const live = { version: 2, generation: 'g1', checkpoint: 40 };

describe('nextStep', () => {
  it.each([
    ['no pointer: start a new generation', null, undefined, { kind: 'create' }],
    ['an older version: rebuild', { ...live, version: 1 }, undefined, { kind: 'rebuild' }],
    ['a newer version: leave it alone', { ...live, version: 3 }, undefined, { kind: 'superseded', version: 3 }],
    ['not following yet: subscribe', live, undefined, { kind: 'follow', pointer: live }],
    ['same generation, moved ahead by another process', live, { ...live, checkpoint: 30 }, { kind: 'continue', pointer: live }],
    ['same generation, where we are', live, live, { kind: 'continue', pointer: live }],
    ['same generation, moved back (restored data)', live, { ...live, checkpoint: 50 }, { kind: 'follow', pointer: live }],
    ['another generation (a rebuild switched)', live, { ...live, generation: 'g0', checkpoint: 45 }, { kind: 'follow', pointer: live }],
  ])('%s', (_case, pointer, cursor, expected) => {
    expect(nextStep(pointer, 2, cursor)).toEqual(expected);
  });
});
