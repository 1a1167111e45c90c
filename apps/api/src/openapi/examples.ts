import type { OperationObject } from '@nestjs/swagger';

/** What a reader of the docs' walk-throughs sends and gets back, for one operation. */
export interface OperationExample {
  /** Path and query parameters, by name. */
  parameters?: Record<string, string | number>;
  /** The JSON body sent; absent for operations that take none. */
  request?: object;
  /** The JSON body of the success answer, or its raw text for an operation that answers a file. */
  response: object | string;
}

/**
 * Examples by `METHOD path`, taken from the walk-throughs in docs/*.md
 * (README's for customer resolution), so the reference page's "try it"
 * starts from a request the docs show working.
 */
export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample>> = {
  'POST /v1/customers/resolve': {
    request: { userReference: 'cliente-42', identifiers: [{ system: 'cl-sii', type: 'rut', value: '12.345.678-5' }] },
    response: { customerId: '0b5f4c1e-8d1a-4c52-9a57-3f2e6d1b7c90', created: true, identifiers: [{ system: 'cl-sii', type: 'rut', verificationState: 'unverified' }] },
  },
};

/** Puts the operation's example on its parameters, its JSON body and its first success answer. */
export function addExample(key: string, operation: OperationObject): void {
  const example = OPERATION_EXAMPLES[key];
  if (!example) return;
  for (const parameter of operation.parameters ?? []) {
    if ('name' in parameter && example.parameters?.[parameter.name] !== undefined) parameter.example = example.parameters[parameter.name];
  }
  const body = operation.requestBody && 'content' in operation.requestBody ? operation.requestBody.content['application/json'] : undefined;
  if (body && example.request) body.example = example.request;
  const success = Object.entries(operation.responses).find(([status]) => /^2/.test(status))?.[1];
  const content = success && 'content' in success ? Object.values(success.content ?? {})[0] : undefined;
  if (content) content.example = example.response;
}
