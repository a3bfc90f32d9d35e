// Where focus goes when a screen appears: its heading, so a screen reader says where the user
// now is and Tab goes on from there, instead of falling back to the top of the page.

/** A Svelte action: focuses `node` once it is in the page, unless a modal dialog holds focus.
 * It waits for the rest of the update, so a dialog closing in the same change (the server
 * dialog once connected) is gone before it looks. */
export function focusOnMount(node: HTMLElement) {
  queueMicrotask(() => {
    if (node.isConnected && !document.querySelector('[aria-modal="true"]')) node.focus();
  });
}
