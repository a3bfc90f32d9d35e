// A section's figures, fetched on opening and again on Refresh: only the latest request's
// answer or failure is shown, so a slow earlier answer never replaces a newer one.
import { errorText } from './format';

export class Latest {
  /** True while the latest request is on its way. */
  loading = $state(false);
  /** The latest request's failure, as a sentence (or a section's own refusal to ask). */
  error = $state<string | null>(null);
  private request = 0;

  /** Whether anything has been asked yet. */
  get started(): boolean {
    return this.request > 0;
  }

  /** Runs `fetch` and hands its answer to `show`, unless a later run started meanwhile. */
  async run<T>(fetch: () => Promise<T>, show: (answer: T) => void): Promise<void> {
    const mine = ++this.request;
    this.loading = true;
    this.error = null;
    try {
      const answer = await fetch();
      if (mine === this.request) show(answer);
    } catch (e) {
      if (mine === this.request) this.error = errorText(e);
    } finally {
      if (mine === this.request) this.loading = false;
    }
  }
}
