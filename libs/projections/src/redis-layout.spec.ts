import { RedisLayout } from './redis-layout';

/** The hash tag Redis Cluster computes a key's slot from: the text between the first `{` and the next `}`, if any. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

function keysOf(layout: RedisLayout, name: string): string[] {
  return [
    layout.pointer(name),
    layout.building(name),
    layout.buildingPartition(name, 1, 4),
    layout.legacyKeySet(name, 'a1b2c3'),
    layout.doc(name, 'a1b2c3', 't1:s1'),
    layout.index(name, 'a1b2c3', 'customer', 't1:c1'),
    layout.group(name, 'a1b2c3', 't1:g1'),
  ];
}

describe('RedisLayout', () => {
  it('on one Redis, names every key as releases before Redis Cluster did, so an upgrade keeps its read model', () => {
    expect(keysOf(new RedisLayout('bank'), 'redec-consents')).toEqual([
      'bank:projection:redec-consents',
      'bank:projection:redec-consents:building',
      'bank:projection:redec-consents:building:1/4',
      'bank:projection:redec-consents:keys:a1b2c3',
      'bank:rm:redec-consents:a1b2c3:doc:t1:s1',
      'bank:rm:redec-consents:a1b2c3:idx:customer:t1:c1',
      'bank:rm:redec-consents:a1b2c3:grp:t1:g1',
    ]);
  });

  it('on a Redis Cluster, puts every key of a projection in the slot of its own hash tag, and each projection in another', () => {
    const layout = new RedisLayout('bank', true);
    const consents = keysOf(layout, 'redec-consents');
    expect(new Set(consents.map(hashTag))).toEqual(new Set(['bank:rm:redec-consents']));
    expect(new Set(keysOf(layout, 'customers').map(hashTag))).toEqual(new Set(['bank:rm:customers']));
    expect(consents.every((key) => key.startsWith('bank:'))).toBe(true);
    expect(layout.doc('redec-consents', 'a1b2c3', 't1:s1').startsWith(layout.generationBase('redec-consents', 'a1b2c3'))).toBe(true);
  });

  it('on a Redis Cluster, finds every projection\'s generations with its models pattern, and no key of another prefix', () => {
    const layout = new RedisLayout('bank', true);
    const pattern = new RegExp(`^${layout.modelsPattern().replace(/\*/g, '.*')}$`);
    expect(pattern.test(layout.doc('customers', 'a1b2c3', 't1:c1'))).toBe(true);
    expect(pattern.test(new RedisLayout('bank2', true).doc('customers', 'a1b2c3', 't1:c1'))).toBe(false);
  });
});
