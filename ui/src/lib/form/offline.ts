// Drafts kept on this computer while the project's server cannot be reached. A save refused with
// `server_unavailable` stored nothing; the keeper then keeps the draft in local storage (its
// values and case revision only, keyed by project, rater and task) and saves it when the server
// is back: tried again after 1 s, the wait doubling to 30 s, at once after any save that gets
// through, and when the rater's panes open (the app starts, the project reopens). A submission
// that could not reach the server is kept as a draft too, never submitted later on its own: the
// rater is told to submit again.
import { toApiError, type AnswerRequest, type AnswerView, type ApiError, type JsonValue } from '../api';

/** What the form says while drafts are kept here. */
export const NOT_SAVED =
  'Not saved to the server — it cannot be reached. Your answers are kept on this computer and will be saved when it is back.';

/** What the form adds when the kept draft is a submission that did not get through. */
export const SUBMIT_AGAIN = 'They were not submitted: submit again once the server is back.';

/** A draft kept on this computer. */
export interface KeptDraft {
  /** The task. */
  case: string;
  values: Record<string, JsonValue>;
  case_revision: number | null;
  /** The rater meant to submit it: it is saved as a draft, and they submit again. */
  submit: boolean;
}

/** What is stored under a draft's key: everything but the task, which the key names. */
type Stored = Omit<KeptDraft, 'case'>;

const PREFIX = 'verity.kept-draft:';

export interface KeeperOptions {
  /** The project file (or server), rater: whose drafts these are. */
  project: string;
  rater: string;
  /** Saves a draft on the project (`api.saveDraft`). */
  save: (req: AnswerRequest) => Promise<AnswerView>;
  /** A kept draft reached the server (or a later save of its task did). */
  onsaved?: (draft: KeptDraft, saved: AnswerView) => void;
  /** A kept draft was refused for another reason than the server; it is no longer kept. */
  onrefused?: (draft: KeptDraft, error: ApiError) => void;
  /** The drafts kept changed. */
  onchange?: () => void;
  storage?: Storage;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

export class DraftKeeper {
  private readonly storage: Storage;
  private readonly firstDelayMs: number;
  private readonly maxDelayMs: number;
  private delayMs: number;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: KeeperOptions) {
    this.storage = options.storage ?? window.localStorage;
    this.firstDelayMs = options.firstDelayMs ?? 1_000;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.delayMs = this.firstDelayMs;
  }

  /** Saves a draft on the server. When the server cannot be reached it keeps the draft here and
   * resolves to `null`; other refusals reject as before. Saves and retries run one at a time. */
  save(req: AnswerRequest): Promise<AnswerView | null> {
    return this.serial(async () => {
      const before = this.storage.getItem(this.key(req.instance_id));
      try {
        const saved = await this.options.save(req);
        this.saved(req.instance_id, before, saved);
        // The server is back: the other kept drafts need not wait.
        if (this.all().length > 0) void this.retry();
        else this.delayMs = this.firstDelayMs;
        return saved;
      } catch (raw) {
        const error = toApiError(raw);
        if (error.code !== 'server_unavailable') throw error;
        this.keep(req, false);
        return null;
      }
    });
  }

  /** Keeps a draft here and tries it again later; `submit` when the rater meant to submit it
   * (a later edit kept of the same task still asks them to submit again). */
  keep(req: AnswerRequest, submit: boolean): void {
    const meant = submit || this.kept(req.instance_id)?.submit === true;
    const stored: Stored = { values: req.values as Record<string, JsonValue>, case_revision: req.case_revision, submit: meant };
    this.storage.setItem(this.key(req.instance_id), JSON.stringify(stored));
    this.options.onchange?.();
    this.later();
  }

  /** The draft of `task` kept here, if any. */
  kept(task: string): KeptDraft | null {
    return this.read(task, this.storage.getItem(this.key(task)));
  }

  /** Every draft of this rater in this project kept here. */
  all(): KeptDraft[] {
    const drafts: KeptDraft[] = [];
    for (let i = 0; i < this.storage.length; i += 1) {
      const key = this.storage.key(i);
      const task = key === null ? null : this.taskOf(key);
      const draft = task === null ? null : this.read(task, this.storage.getItem(key!));
      if (draft) drafts.push(draft);
    }
    return drafts.sort((a, b) => a.case.localeCompare(b.case, undefined, { numeric: true }));
  }

  /** Tries every kept draft now; stops at the first the server cannot take and waits again. */
  retry(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    return this.serial(async () => {
      for (const { case: task } of this.all()) {
        if (this.stopped) return;
        const sent = this.storage.getItem(this.key(task));
        const draft = this.read(task, sent);
        if (!draft) continue;
        try {
          const saved = await this.options.save({ rater: this.options.rater, instance_id: draft.case, values: draft.values as AnswerRequest['values'], case_revision: draft.case_revision, reason: null });
          this.saved(draft.case, sent, saved);
        } catch (raw) {
          const error = toApiError(raw);
          if (error.code === 'server_unavailable') {
            this.later();
            return;
          }
          this.forget(draft.case, sent);
          this.options.onrefused?.(draft, error);
        }
      }
      this.delayMs = this.firstDelayMs;
    });
  }

  /** Stops trying (the panes closed); what is kept stays for the next time they open. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** A save of `task` got through: the draft kept when it started (`before`) is now on the
   * server or out of date. */
  private saved(task: string, before: string | null, saved: AnswerView): void {
    const draft = this.read(task, before);
    if (draft && this.forget(task, before)) this.options.onsaved?.(draft, saved);
  }

  /** Forgets the kept draft of `task` if it is still `text` (a newer one kept meanwhile stays). */
  private forget(task: string, text: string | null): boolean {
    const key = this.key(task);
    if (text === null || this.storage.getItem(key) !== text) return false;
    this.storage.removeItem(key);
    this.options.onchange?.();
    return true;
  }

  /** Tries again after the current wait, then waits twice as long (up to the longest wait). */
  private later(): void {
    if (this.stopped || this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.retry();
    }, this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2, this.maxDelayMs);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.running.then(work);
    this.running = next.catch(() => undefined);
    return next;
  }

  private key(task: string): string {
    return PREFIX + JSON.stringify([this.options.project, this.options.rater, task]);
  }

  /** The task a storage key is for, when it is a kept draft of this project and rater. */
  private taskOf(key: string): string | null {
    if (!key.startsWith(PREFIX)) return null;
    try {
      const parts: unknown = JSON.parse(key.slice(PREFIX.length));
      if (!Array.isArray(parts) || parts.length !== 3) return null;
      const [project, rater, task] = parts;
      return project === this.options.project && rater === this.options.rater && typeof task === 'string' ? task : null;
    } catch {
      return null;
    }
  }

  private read(task: string, text: string | null): KeptDraft | null {
    if (text === null) return null;
    try {
      const stored = JSON.parse(text) as Stored;
      if (!stored || typeof stored.values !== 'object' || stored.values === null) return null;
      return { case: task, values: stored.values, case_revision: stored.case_revision ?? null, submit: stored.submit === true };
    } catch {
      return null;
    }
  }
}
