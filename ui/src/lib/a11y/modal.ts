// A modal dialog's keyboard contract, as a Svelte action on the dialog element: focus moves in
// when it opens (to `[data-autofocus]`, else its first control, else the dialog itself), Tab and
// Shift+Tab cycle inside it, focus that lands outside it is brought back, Escape asks it to
// close, and when it goes focus returns to what had it before (the button that opened it).

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

export interface ModalOptions {
  /** Called on Escape; the owner removes the dialog. */
  onclose: () => void;
  /** While false (a request running), Escape does nothing. */
  closable?: () => boolean;
}

/** The controls of `root` that Tab reaches, in order. */
export function tabbable(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !el.closest('[hidden], [inert]'));
}

export function modal(node: HTMLElement, options: ModalOptions) {
  let current = options;
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const first = node.querySelector<HTMLElement>('[data-autofocus]') ?? tabbable(node)[0] ?? node;
  first.focus();

  function onkeydown(e: KeyboardEvent) {
    if (e.key === 'Escape') {
      if (current.closable?.() === false) return;
      e.preventDefault();
      e.stopPropagation();
      current.onclose();
      return;
    }
    if (e.key !== 'Tab') return;
    const stops = tabbable(node);
    if (stops.length === 0) {
      e.preventDefault();
      node.focus();
      return;
    }
    const at = stops.indexOf(document.activeElement as HTMLElement);
    if (e.shiftKey && at <= 0) {
      e.preventDefault();
      stops[stops.length - 1].focus();
    } else if (!e.shiftKey && at === stops.length - 1) {
      e.preventDefault();
      stops[0].focus();
    }
  }

  function onfocusin(e: FocusEvent) {
    if (e.target instanceof Node && !node.contains(e.target)) (tabbable(node)[0] ?? node).focus();
  }

  // On the document, so Escape and stray focus are caught wherever they happen.
  document.addEventListener('keydown', onkeydown, true);
  document.addEventListener('focusin', onfocusin);
  return {
    update(next: ModalOptions) {
      current = next;
    },
    destroy() {
      document.removeEventListener('keydown', onkeydown, true);
      document.removeEventListener('focusin', onfocusin);
      if (opener?.isConnected) opener.focus();
    },
  };
}
