import 'reflect-metadata';
import { Type, plainToInstance } from 'class-transformer';
import { IsInt, IsString, MaxLength, ValidateNested, getMetadataStorage, validate } from 'class-validator';
import { memoizeValidationMetadata } from './validation-metadata-memo';

class Inner {
  @IsInt()
  count!: number;
}

class Outer {
  @IsString()
  @MaxLength(5)
  name!: string;

  @ValidateNested()
  @Type(() => Inner)
  inner!: Inner;
}

const options = { whitelist: true, forbidNonWhitelisted: true };
const failures = async (target: new () => object, value: object) =>
  (await validate(plainToInstance(target, value), options)).map((error) => [error.property, Object.keys(error.constraints ?? {}), error.children?.length ?? 0]);

describe('memoizeValidationMetadata', () => {
  const invalid = { name: 'toolong', inner: { count: 'x' }, extra: 1 };

  it('answers every lookup as class-validator does, and the same array the second time', async () => {
    const unmemoized = await failures(Outer, invalid);
    memoizeValidationMetadata();
    expect(await failures(Outer, invalid)).toEqual(unmemoized);
    expect(unmemoized).toEqual([
      ['extra', ['whitelistValidation'], 0],
      ['name', ['maxLength'], 0],
      ['inner', [], 1],
    ]);
    expect(await failures(Outer, { name: 'ok', inner: { count: 3 } })).toEqual([]);
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Outer, '', false, false);
    expect(storage.getTargetValidationMetadatas(Outer, '', false, false)).toBe(first);
    expect(storage.groupByPropertyName(first)).toBe(storage.groupByPropertyName(first));
  });

  it('forgets what it remembered when a rule is registered, so a rule added later is enforced', async () => {
    class Late {
      @IsString()
      label!: string;
    }
    expect(await failures(Late, { label: 'a', count: 1 })).toEqual([['count', ['whitelistValidation'], 0]]);
    // A decorator applied after the first validation of the class, as a subclass module loaded later would.
    IsInt()(Late.prototype, 'count');
    expect(await failures(Late, { label: 'a', count: 1 })).toEqual([]);
    expect(await failures(Late, { label: 'a', count: 'x' })).toEqual([['count', ['isInt'], 0]]);
  });

  it('is applied once however often it is called', () => {
    const storage = getMetadataStorage();
    const lookUp = storage.getTargetValidationMetadatas;
    memoizeValidationMetadata();
    expect(storage.getTargetValidationMetadatas).toBe(lookUp);
  });
});
