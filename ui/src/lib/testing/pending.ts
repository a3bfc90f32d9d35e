// For tests of what a view shows while the Rust side has not answered yet: a request the test
// answers when it chooses, and a watch on whether some text was ever on screen in between.

/** A promise and the functions that settle it. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (reason: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** Watches `root` from now on; `seen()` tells whether `text` was ever in it, even for a moment
 * between two checks. `stop()` ends the watch. */
export function watchFor(root: HTMLElement, text: string): { seen: () => boolean; stop: () => void } {
  let seen = (root.textContent ?? '').includes(text);
  const observer = new MutationObserver(() => {
    if ((root.textContent ?? '').includes(text)) seen = true;
  });
  observer.observe(root, { subtree: true, childList: true, characterData: true });
  return {
    seen: () => {
      // Mutations not delivered yet count too.
      if (observer.takeRecords().length > 0 && (root.textContent ?? '').includes(text)) seen = true;
      return seen;
    },
    stop: () => observer.disconnect(),
  };
}

/** Lets pending promises, effects and renders run. */
export async function settle(ms = 30): Promise<void> {
  await new Promise((done) => setTimeout(done, ms));
}
