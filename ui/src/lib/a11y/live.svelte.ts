// The one polite live region of a view: what it says is read once by a screen reader, after
// whatever the reader is saying. A message repeated on purpose (a second Ctrl+S) is read again;
// the same state reported again on its own (autosave after autosave) is not.

/** The text of a `role="status"` element, changed through `say`. */
export class LiveRegion {
  text = $state('');

  /** Says `message`; when it is what was said last, says it again only if `repeat`. */
  say(message: string, repeat = false) {
    if (this.text.trimEnd() === message) {
      // A changed text node is what makes a reader speak: a trailing no-break space changes it.
      if (repeat) this.text = this.text === message ? `${message}\u00a0` : message;
      return;
    }
    this.text = message;
  }
}
