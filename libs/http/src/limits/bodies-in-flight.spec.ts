import { MIN_BODY_BYTES_IN_FLIGHT, bodiesInFlight } from './bodies-in-flight';

describe('bodiesInFlight', () => {
  it("refuses a budget whose tenant share cannot hold the largest body a route takes, which would be refused forever", () => {
    expect(() => bodiesInFlight({ maxBytes: MIN_BODY_BYTES_IN_FLIGHT - 1 })).toThrow('LEDGER_MAX_BODY_BYTES_IN_FLIGHT must be at least 33554432');
    expect(() => bodiesInFlight({ maxBytes: MIN_BODY_BYTES_IN_FLIGHT })).not.toThrow();
  });
});
