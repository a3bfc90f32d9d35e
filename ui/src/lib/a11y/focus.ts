// Where focus goes when a screen appears: its heading, so a screen reader says where the user
// now is and Tab goes on from there, instead of falling back to the top of the page.

/** A Svelte action: focuses `node` once it is in the page, unless a modal dialog holds focus. */
export function focusOnMount(node: HTMLElement) {
  if (!document.querySelector('[aria-modal="true"]')) node.focus();
}
