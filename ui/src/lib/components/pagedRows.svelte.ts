// The rows of a long list that the Rust side serves a page at a time: pages are fetched as the
// list shows their rows, kept while the query stays the same, and dropped when it changes. An
// answer to an older query is ignored, so typing a search never shows a stale page. Until the
// current query's first answer `pending` is true: a list then says it is loading, never that it
// is empty.

/** What a page request returns. */
export type Page<T> = { total: number; offset: number; items: T[] };

export class PagedRows<T, P extends Page<T> = Page<T>> {
  /** Rows matching the query. */
  total = $state(0);
  /** The latest page's whole answer (counts and other figures besides the rows). */
  last = $state.raw<P | null>(null);
  /** True until the current query's first page arrives. */
  pending = $state(true);
  /** The last failure's sentence, if the last request failed. */
  error = $state<string | null>(null);
  private pages = $state.raw(new Map<number, T[]>());
  private requested = new Set<number>();
  private generation = 0;
  // After a reset, the old query's pages stay shown until the new query's first answer.
  private stale = false;
  // Nothing is fetched before the owner first asks (`reset` or `refresh`): a hidden view stays
  // quiet however its list is laid out.
  private started = false;

  constructor(
    private readonly fetchPage: (offset: number, limit: number) => Promise<P>,
    readonly pageSize = 100,
  ) {}

  /** Row `index`, or `undefined` while its page is on its way. */
  get(index: number): T | undefined {
    return this.pages.get(Math.floor(index / this.pageSize))?.[index % this.pageSize];
  }

  /** Fetches the pages holding rows `start` to `end` (exclusive) that are not here yet. */
  show(start: number, end: number) {
    if (!this.started) return;
    const first = Math.floor(start / this.pageSize);
    const last = Math.max(first, Math.floor((Math.max(end, start + 1) - 1) / this.pageSize));
    for (let page = first; page <= last; page++) {
      if (!this.requested.has(page)) void this.load(page, this.generation);
    }
  }

  /** Starts over for a new query: the rows shown stay until its first page replaces them. */
  reset() {
    this.started = true;
    this.generation += 1;
    this.requested = new Set();
    this.pending = true;
    this.stale = true;
    void this.load(0, this.generation);
  }

  /** Fetches the pages held again (after a change elsewhere), keeping them shown meanwhile. */
  refresh() {
    this.started = true;
    const held = [...this.pages.keys()];
    this.generation += 1;
    this.requested = new Set();
    for (const page of held.length > 0 ? held : [0]) void this.load(page, this.generation);
  }

  /** The first held row `match` picks. */
  find(match: (row: T) => boolean): T | undefined {
    for (const rows of this.pages.values()) {
      const found = rows.find(match);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Changes the rows `match` picks where they are held, until the next answer. */
  update(match: (row: T) => boolean, change: (row: T) => T) {
    let changed = false;
    const pages = new Map(this.pages);
    for (const [page, rows] of pages) {
      if (rows.some(match)) {
        pages.set(page, rows.map((row) => (match(row) ? change(row) : row)));
        changed = true;
      }
    }
    if (changed) this.pages = pages;
  }

  private async load(page: number, generation: number) {
    this.requested.add(page);
    try {
      const answer = await this.fetchPage(page * this.pageSize, this.pageSize);
      if (generation !== this.generation) return;
      const pages = this.stale ? new Map<number, T[]>() : new Map(this.pages);
      this.stale = false;
      pages.set(page, answer.items);
      this.pages = pages;
      this.total = answer.total;
      this.last = answer;
      this.error = null;
      this.pending = false;
    } catch (e) {
      if (generation !== this.generation) return;
      this.requested.delete(page);
      this.error = (e as Error).message;
      this.pending = false;
    }
  }
}
