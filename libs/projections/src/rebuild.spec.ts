import { measureProgress } from './rebuild';

describe('measureProgress', () => {
  it('derives the rate from events and elapsed time, and the time left from the positions still to read', () => {
    expect(measureProgress('customers', 2000, 2000, 10_000, 4000)).toEqual({
      name: 'customers',
      events: 2000,
      position: 2000,
      head: 10_000,
      ratePerSecond: 500,
      etaSeconds: 16,
    });
  });

  it('reports no time left once the head is reached, and survives a zero elapsed time', () => {
    expect(measureProgress('customers', 10, 50, 50, 0)).toMatchObject({ etaSeconds: 0, ratePerSecond: 10_000 });
    expect(measureProgress('customers', 0, 0, 50, 0)).toMatchObject({ etaSeconds: 0, ratePerSecond: 0 });
  });
});
