// Active time on a task: time counts only while the window is visible and focused and the
// rater touched the keyboard or mouse within `idleMs`.
export class ActiveClock {
  private activeMs = 0;
  private lastTick: number;
  private lastInput: number;

  constructor(
    private readonly now: () => number,
    private readonly idleMs = 60_000,
  ) {
    this.lastTick = now();
    this.lastInput = this.lastTick;
  }

  /** A key press, click or scroll. */
  noteInput(): void {
    this.tick(true);
    this.lastInput = this.now();
  }

  /** Advances the clock; `attentive` is false when the window is hidden or unfocused. */
  tick(attentive: boolean): void {
    const t = this.now();
    const sinceInput = t - this.lastInput;
    if (attentive && sinceInput <= this.idleMs) {
      this.activeMs += t - this.lastTick;
    } else if (attentive) {
      // Count up to the idle limit after the last input, not the whole idle stretch.
      const countedUntil = this.lastInput + this.idleMs;
      if (countedUntil > this.lastTick) this.activeMs += countedUntil - this.lastTick;
    }
    this.lastTick = t;
  }

  /** Active time since the last `take`, which resets the count. */
  take(attentive: boolean): number {
    this.tick(attentive);
    const ms = Math.round(this.activeMs);
    this.activeMs = 0;
    return ms;
  }
}

/** Active time as the queue and the progress table show it: nothing for none, "<1 min" under a
 *  minute, else rounded to whole minutes. */
export function activeMinutes(ms: number): string {
  if (ms <= 0) return '';
  return ms < 60_000 ? '<1 min' : `${Math.round(ms / 60_000)} min`;
}
