import { getMetadataStorage } from 'class-validator';

type MetadataStorage = ReturnType<typeof getMetadataStorage>;
type TargetMetadatas = ReturnType<MetadataStorage['getTargetValidationMetadatas']>;

/**
 * class-validator looks up a class's rules on every validation, and for
 * every nested object: it filters every rule registered for the class and
 * tests the class against every class that has rules (inheritance), then
 * groups the rules by property, each time. On the request path this was a
 * tenth of the validation's CPU (issue 14's profiles), for an answer that
 * only changes when a rule is registered. This remembers the answers per
 * class and options, and forgets them all whenever a rule is registered, so
 * what validates is always what class-validator itself would compute.
 * Validations with groups (we use none) are left to class-validator.
 */
export function memoizeValidationMetadata(storage: MetadataStorage = getMetadataStorage()): void {
  if (memoized.has(storage)) return;
  memoized.add(storage);
  const lookUp = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const register = storage.addValidationMetadata.bind(storage);
  let byTarget = new Map<unknown, Map<string, TargetMetadatas>>();
  let grouped = new WeakMap<TargetMetadatas, ReturnType<MetadataStorage['groupByPropertyName']>>();

  storage.addValidationMetadata = (metadata) => {
    byTarget = new Map();
    grouped = new WeakMap();
    register(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (groups !== undefined && groups.length > 0) return lookUp(target, schema, always, strictGroups, groups);
    let forTarget = byTarget.get(target);
    if (forTarget === undefined) byTarget.set(target, (forTarget = new Map()));
    const options = `${schema}|${always}|${strictGroups}`;
    let metadatas = forTarget.get(options);
    if (metadatas === undefined) forTarget.set(options, (metadatas = lookUp(target, schema, always, strictGroups, groups)));
    return metadatas;
  };
  storage.groupByPropertyName = (metadatas) => {
    let byProperty = grouped.get(metadatas);
    if (byProperty === undefined) grouped.set(metadatas, (byProperty = group(metadatas)));
    return byProperty;
  };
}

const memoized = new WeakSet<MetadataStorage>();
