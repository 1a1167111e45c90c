import 'reflect-metadata';
import { Exclude, Transform, Type, plainToInstance } from 'class-transformer';
import { createPlainToInstance } from './plain-to-instance';

class Inner {
  name?: string;

  describe(): string {
    return `inner ${this.name}`;
  }

  get shout(): string {
    return String(this.name).toUpperCase();
  }
}

class Outer {
  @Type(() => Inner)
  inner?: Inner;

  @Type(() => Inner)
  items?: Inner[];

  @Transform(({ value }) => (typeof value === 'string' ? value.toLowerCase() : value))
  code?: string;

  free?: unknown;
}

class WithExclusion {
  @Exclude()
  hidden?: string;
}

class WithDate {
  @Type(() => Date)
  at?: Date;
}

const build = createPlainToInstance();
const json = (text: string) => JSON.parse(text) as object;

describe('createPlainToInstance', () => {
  it.each([
    ['nested and listed classes, transforms, free-form values', '{"inner":{"name":"a"},"items":[{"name":"b"},null,"c",[{"name":"d"}]],"code":"ABC","free":{"x":[1,{"y":true}]}}'],
    ['keys naming a method or getter of the instance, and of Object.prototype', '{"inner":{"name":"a","describe":1,"shout":2,"toString":3,"hasOwnProperty":4}}'],
    ['values of the wrong shape for their type', '{"inner":"text","items":{"0":{"name":"x"}},"code":7}'],
    ['an unknown key and an empty object', '{"unknown":{},"inner":{}}'],
  ])('builds what class-transformer builds: %s', (_case, text) => {
    const built = build(Outer, json(text));
    expect(built).toBeDefined();
    expect(built).toStrictEqual(plainToInstance(Outer, json(text)));
  });

  it('leaves to class-transformer what it is not sure of', () => {
    // Keys Nest's pipe strips first.
    expect(build(Outer, json('{"__proto__":{"polluted":true}}'))).toBeUndefined();
    expect(build(Outer, json('{"inner":{"constructor":{"prototype":{}}}}'))).toBeUndefined();
    // Values no JSON body holds.
    expect(build(Outer, { inner: new Date() })).toBeUndefined();
    // eslint-disable-next-line no-sparse-arrays
    expect(build(Outer, { items: [{ name: 'a' }, , { name: 'b' }] })).toBeUndefined();
    // Decorators and options it does not follow.
    expect(build(WithExclusion, json('{"hidden":"x"}'))).toBeUndefined();
    expect(build(WithDate, json('{"at":1}'))).toBeUndefined();
    expect(createPlainToInstance({ enableImplicitConversion: true })(Outer, json('{}'))).toBeUndefined();
  });
});
