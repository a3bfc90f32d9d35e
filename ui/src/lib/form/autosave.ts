// Saves a draft at most `delayMs` after the last edit, and at once on `flush` (blur, close,
// switching task), so a killed app loses at most that delay.
export class Autosave<T> {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private pending: T | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly save: (value: T) => Promise<void>,
    private readonly delayMs = 500,
  ) {}

  /** Records an edit; the latest value is saved when the delay passes without another edit. */
  schedule(value: T): void {
    this.pending = value;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), this.delayMs);
  }

  get dirty(): boolean {
    return this.pending !== null;
  }

  /** Saves the pending value now; saves run one after another, never overlapping. */
  flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const value = this.pending;
    if (value === null) return this.running;
    this.pending = null;
    this.running = this.running.then(() => this.save(value));
    return this.running;
  }

  /** Forgets a pending edit (the task was submitted or left without changes to keep). */
  cancel(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.pending = null;
  }
}
