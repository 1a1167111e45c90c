import { ProjectionProgress } from './projection-progress';

describe('ProjectionProgress', () => {
  it('lets a command answer once the model has absorbed its position, and its reads then hold it', async () => {
    const progress = new ProjectionProgress();
    progress.update({ absorbed: 9, ready: true, rebuilding: false });
    const answered = progress.readableAfter(10, 1_000);
    progress.update({ absorbed: 10, ready: true, rebuilding: false });
    expect(await answered).toBe(true);
    expect(progress.holdsAnsweredCommands()).toBe(true);
  });

  it('answers false when the position is not absorbed in time and no rebuild begins', async () => {
    const progress = new ProjectionProgress();
    progress.update({ absorbed: 9, ready: true, rebuilding: false });
    expect(await progress.readableAfter(10, 20)).toBe(false);
    expect(progress.holdsAnsweredCommands()).toBe(true);
  });

  it('lets a command answer as soon as a rebuild is known, and holds reads back until the model has absorbed it', async () => {
    const progress = new ProjectionProgress();
    progress.update({ absorbed: 9, ready: true, rebuilding: false });
    const answered = progress.readableAfter(12, 60_000);
    progress.update({ absorbed: 0, ready: false, rebuilding: true });
    expect(await answered).toBe(true);
    expect(progress.holdsAnsweredCommands()).toBe(false);

    // The rebuild ends before the model reaches the command's position: its reads still wait for it.
    progress.update({ absorbed: 11, ready: true, rebuilding: false });
    expect(progress.holdsAnsweredCommands()).toBe(false);
    progress.update({ absorbed: 12, ready: true, rebuilding: false });
    expect(progress.holdsAnsweredCommands()).toBe(true);
  });

  it('answers at once a command recorded while a rebuild is under way', async () => {
    const progress = new ProjectionProgress();
    progress.update({ absorbed: 3, ready: false, rebuilding: true });
    expect(await progress.readableAfter(40, 60_000)).toBe(true);
    expect(progress.holdsAnsweredCommands()).toBe(false);
  });

  it('lets a command answer as soon as the model is out of reach, and at once while it stays so, holding reads back until the model has absorbed it', async () => {
    const progress = new ProjectionProgress();
    progress.update({ absorbed: 9, ready: true, rebuilding: false });
    const answered = progress.readableAfter(10, 60_000);
    progress.modelReachable(false);
    expect(await answered).toBe(true);
    expect(await progress.readableAfter(11, 60_000)).toBe(true);
    expect(progress.holdsAnsweredCommands()).toBe(false);

    progress.modelReachable(true);
    progress.update({ absorbed: 10, ready: true, rebuilding: false });
    expect(progress.holdsAnsweredCommands()).toBe(false);
    progress.update({ absorbed: 11, ready: true, rebuilding: false });
    expect(progress.holdsAnsweredCommands()).toBe(true);
    // Back in reach, a command waits for the model again.
    expect(await progress.readableAfter(12, 20)).toBe(false);
  });
});
