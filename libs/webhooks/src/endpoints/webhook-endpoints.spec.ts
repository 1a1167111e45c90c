import type { RecordedEvent } from '@ledger/event-store';
import { refusalOf } from '@ledger/platform/testing';
import { WebhookEndpointEvent } from './webhook-endpoint.events';
import { MAX_ACTIVE_ENDPOINTS, decideDisableEndpoint, decideRegisterEndpoint, decideRotateSecret } from './webhook-endpoints.decider';
import { WebhookEndpoints, endpointsSubscribedAt, evolveWebhookEndpoints, signingSecrets } from './webhook-endpoints.state';

const TYPE = 'redec.notification.required';
const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;

/** Folds events as if recorded at consecutive positions starting at `from`. */
function fold(events: WebhookEndpointEvent[], state: WebhookEndpoints = [], from = 10): WebhookEndpoints {
  return events.reduce(
    (s, e, i) => evolveWebhookEndpoints(s, { ...e, id: `e${i}`, metadata: { correlationId: 'c', recordedAt: NOW, schemaVersion: 1 }, streamId: 's', revision: i, position: from + i, created: NOW, integrity: { hash: 'h', previousHash: null } } as RecordedEvent),
    state,
  );
}
const register = (state: WebhookEndpoints, endpointId: string, eventTypes = [TYPE]) =>
  decideRegisterEndpoint(state, { url: 'https://bank.example/hooks', eventTypes }, { endpointId, encryptedSecret: `secret-${endpointId}` }, NOW);

describe('webhook endpoints', () => {
  it('registers an endpoint with its encrypted secret, event types deduplicated', () => {
    const [event] = register([], 'ep-1', [TYPE, TYPE]);
    expect(event).toEqual({ type: 'WebhookEndpointRegistered', data: { endpointId: 'ep-1', url: 'https://bank.example/hooks', eventTypes: [TYPE], encryptedSecret: 'secret-ep-1', registeredAt: NOW } });
    expect(fold([event])).toEqual([
      { endpointId: 'ep-1', url: 'https://bank.example/hooks', eventTypes: [TYPE], secrets: [{ encryptedSecret: 'secret-ep-1', validUntil: null }], registeredAt: NOW, registeredPosition: 10, disabledPosition: null, disabled: null },
    ]);
  });

  it(`refuses more than ${MAX_ACTIVE_ENDPOINTS} active endpoints; disabled ones do not count`, () => {
    let state: WebhookEndpoints = [];
    for (let i = 0; i < MAX_ACTIVE_ENDPOINTS; i += 1) state = fold(register(state, `ep-${i}`), state, 10 + i);
    expect(refusalOf(() => register(state, 'one-more')).code).toBe('webhook_endpoint_limit_reached');
    state = fold(decideDisableEndpoint(state, 'ep-0', 'deleted', NOW), state, 100);
    expect(register(state, 'one-more')).toHaveLength(1);
  });

  it('delivers a fact to the endpoints registered before it and not disabled before it, for their event types', () => {
    let state = fold(register([], 'early'), [], 10);
    state = fold(register(state, 'other-type', ['something.else']), state, 11);
    state = fold(decideDisableEndpoint(state, 'early', 'deleted', NOW), state, 30);
    state = fold(register(state, 'late'), state, 40);
    const at = (position: number) => endpointsSubscribedAt(state, position, TYPE).map((e) => e.endpointId);
    expect(at(10)).toEqual([]);
    expect(at(20)).toEqual(['early']);
    expect(at(35)).toEqual([]);
    expect(at(50)).toEqual(['late']);
  });

  it('rotates a secret: both sign during the overlap, then only the new one', () => {
    let state = fold(register([], 'ep-1'));
    state = fold(decideRotateSecret(state, 'ep-1', 'secret-2', HOUR, NOW), state, 20);
    const signing = (now: number) => signingSecrets(state[0], now).map((s) => s.encryptedSecret);
    expect(signing(NOW + HOUR - 1)).toEqual(['secret-2', 'secret-ep-1']);
    expect(signing(NOW + HOUR)).toEqual(['secret-2']);
    // A second rotation never extends an older secret's overlap, and drops the expired ones.
    state = fold(decideRotateSecret(state, 'ep-1', 'secret-3', 10 * HOUR, NOW + 2 * HOUR), state, 30);
    expect(state[0].secrets).toEqual([
      { encryptedSecret: 'secret-3', validUntil: null },
      { encryptedSecret: 'secret-2', validUntil: NOW + 12 * HOUR },
    ]);
  });

  it('refuses to rotate an unknown or disabled endpoint', () => {
    const state = fold([...register([], 'ep-1'), { type: 'WebhookEndpointDisabled', data: { endpointId: 'ep-1', reason: 'gone', disabledAt: NOW } }]);
    expect(refusalOf(() => decideRotateSecret(state, 'ep-1', 's', HOUR, NOW)).code).toBe('webhook_endpoint_disabled');
    expect(refusalOf(() => decideRotateSecret(state, 'nope', 's', HOUR, NOW)).code).toBe('NOT_FOUND');
  });

  it('disables once: deleting a disabled endpoint records nothing; an unknown one is not found', () => {
    const state = fold(register([], 'ep-1'));
    const [disabled] = decideDisableEndpoint(state, 'ep-1', 'deleted', NOW);
    expect(disabled).toEqual({ type: 'WebhookEndpointDisabled', data: { endpointId: 'ep-1', reason: 'deleted', disabledAt: NOW } });
    const after = fold([disabled], state, 20);
    expect(after[0]).toMatchObject({ disabled: { reason: 'deleted', disabledAt: NOW }, disabledPosition: 20 });
    expect(decideDisableEndpoint(after, 'ep-1', 'deleted', NOW + 1)).toEqual([]);
    expect(refusalOf(() => decideDisableEndpoint(after, 'nope', 'deleted', NOW)).code).toBe('NOT_FOUND');
  });
});
