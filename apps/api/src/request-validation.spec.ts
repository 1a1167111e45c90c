import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { jsonShapeRefusal } from '../../../libs/http/src/limits/bounded-json';
import { RequestValidationPipe } from '../../../libs/http/src/validation/validation';
import { FuzzContext } from '../../../fuzz/fuzz-context';
import { generateRequest } from '../../../fuzz/generate';
import { Document, operationName, operationsOf } from '../../../fuzz/operations';
import { AppModule } from './app.module';
import { OPERATION_EXAMPLES } from './openapi/examples';

/**
 * The validation pipe decides a body's validity with compiled code, and runs
 * class-validator only when that code is not sure (libs/http's
 * validity-check.ts). That must change nothing a client can see: here every
 * request body of the committed API document, valid ones and the fuzz
 * harness's hostile variants of them, goes through the pipe and through the
 * same pipe running class-validator alone, and the two must agree on the
 * instance handed to the handler (its classes included) or on the problem
 * returned.
 */
const REQUESTS = Number(process.env.LEDGER_VALIDATION_RUNS ?? 3_000);
const SEED = 1_401;
const NOW = Date.UTC(2026, 10, 24);

/** The pipe without the compiled check: class-validator decides every time. */
class ClassValidatorOnlyPipe extends RequestValidationPipe {
  protected override validate(...args: Parameters<ValidationPipe['validate']>): ReturnType<ValidationPipe['validate']> {
    return ValidationPipe.prototype['validate'].apply(this, args);
  }
}

const document = JSON.parse(readFileSync(join(__dirname, '../../../openapi/openapi.json'), 'utf8')) as Document & {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } }>>;
};

/** Every class with validation rules, by name: the OpenAPI document names request bodies by their DTO's class name. */
function dtoClassesByName(): Map<string, new () => object> {
  void AppModule; // imported for its side effect: every controller, hence every DTO and its rules, is loaded.
  // class-validator keeps its targets in a private map; nothing public lists them.
  const targets = (getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, unknown> }).validationMetadatas.keys();
  return new Map([...targets].filter((target): target is new () => object => typeof target === 'function').map((target) => [target.name, target]));
}

function bodyClassOf(classes: Map<string, new () => object>, method: string, path: string): (new () => object) | undefined {
  const ref = document.paths[path]?.[method.toLowerCase()]?.requestBody?.content?.['application/json']?.schema?.$ref;
  return ref ? classes.get(ref.split('/').pop()!) : undefined;
}

const context: FuzzContext = {
  own: { tenantId: 'own', values: {} },
  other: { tenantId: 'other', values: {} },
  keys: { all: 'key_all', readOnly: 'key_read', revoked: 'key_revoked', other: 'key_other' },
  examples: Object.fromEntries(
    Object.entries(OPERATION_EXAMPLES).map(([name, example]) => [
      name,
      { path: Object.fromEntries(Object.entries(example.parameters ?? {}).map(([key, value]) => [key, String(value)])), query: {}, body: example.request },
    ]),
  ),
  ruts: ['12345678-5'],
  webhookSecret: 'whsec_fuzz',
};

type Outcome = { resolved: unknown } | { rejected: unknown };

/** A key Nest's pipe strips before building the instance: the pipe refuses it as an unknown property, whichever decides the rest. */
function hasPrototypeKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, item]) => key === '__proto__' || key === 'prototype' || key === 'constructor' || hasPrototypeKey(item));
}

async function outcomeOf(pipe: RequestValidationPipe, value: unknown, metadata: ArgumentMetadata): Promise<Outcome> {
  try {
    // A copy each, parsed as the body parser parses (in this realm: structuredClone's objects have another Object.prototype),
    // since the pipe strips prototype keys in place.
    return { resolved: await pipe.transform(JSON.parse(JSON.stringify(value)), metadata) };
  } catch (error) {
    return { rejected: error };
  }
}

describe('request validation with the compiled validity check', () => {
  const classes = dtoClassesByName();
  const operations = operationsOf(document).filter((operation) => bodyClassOf(classes, operation.method, operation.path));
  const compiled = new RequestValidationPipe();
  const reference = new ClassValidatorOnlyPipe();

  it('knows the body class of every operation that takes a JSON body', () => {
    const withJsonBodies = operationsOf(document).filter((operation) => operation.body?.mediaType === 'application/json');
    expect(withJsonBodies.filter((operation) => !bodyClassOf(classes, operation.method, operation.path)).map(operationName)).toEqual([]);
    expect(operations.length).toBeGreaterThan(20);
  });

  it('accepts and refuses exactly what class-validator alone does, with the same instance or the same problem', async () => {
    const classValidatorRuns = jest.spyOn(ValidationPipe.prototype as unknown as { validate: () => unknown }, 'validate');
    const counts = { accepted: 0, refusedWithPrototypeKeys: 0, refused: 0, acceptedWithoutClassValidator: 0 };
    for (let index = 0; index < REQUESTS; index += 1) {
      const request = generateRequest(operations, context, SEED, index, NOW);
      // Bodies the JSON parser refuses for their shape never reach validation.
      if (!request.body || jsonShapeRefusal(request.body)) continue;
      let body: unknown;
      try {
        body = JSON.parse(request.body.toString('utf8'));
      } catch {
        continue; // not JSON: the body parser answers before validation
      }
      const [method, path] = request.operation.split(' ');
      const metadata: ArgumentMetadata = { type: 'body', metatype: bodyClassOf(classes, method, path), data: '' };
      const expected = await outcomeOf(reference, body, metadata);
      const runsBefore = classValidatorRuns.mock.calls.length;
      const actual = await outcomeOf(compiled, body, metadata);
      try {
        expect(actual).toStrictEqual(expected);
      } catch (error) {
        throw new Error(`${request.operation} (${request.strategy} ${request.target}): ${JSON.stringify(body)}\n${String(error)}`);
      }
      if ('resolved' in actual) {
        counts.accepted += 1;
        if (classValidatorRuns.mock.calls.length === runsBefore) counts.acceptedWithoutClassValidator += 1;
      } else {
        counts.refused += 1;
        if (hasPrototypeKey(body)) counts.refusedWithPrototypeKeys += 1;
      }
    }
    classValidatorRuns.mockRestore();
    // Both sides of the rules were exercised, and the compiled check is what decided the valid requests.
    expect(counts.accepted).toBeGreaterThan(REQUESTS / 20);
    expect(counts.refusedWithPrototypeKeys).toBeGreaterThan(0);
    expect(counts.refused).toBeGreaterThan(REQUESTS / 4);
    expect(counts.acceptedWithoutClassValidator).toBe(counts.accepted);
  });
});
