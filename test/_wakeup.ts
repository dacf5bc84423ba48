// Lets a test wait for something pushed by a callback (a stream frame, a message) without polling: the waiter sleeps
// until the producer calls notify() or until its deadline, then looks again.

export class Wakeup {
  private waiter: (() => void) | undefined;

  /** Wakes the one waiting, if any. */
  notify(): void {
    this.waiter?.();
  }

  /**
   * Resolves at the next notify() or at `deadline` (a Date.now() value), whichever comes first.
   * @example while (queue.length === 0 && Date.now() < deadline) await wakeup.sleepUntil(deadline);
   */
  async sleepUntil(deadline: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      this.waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.waiter = undefined;
  }
}
