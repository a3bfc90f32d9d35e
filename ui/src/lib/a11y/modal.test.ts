import { afterEach, describe, expect, it, vi } from 'vitest';
import { modal } from './modal';

/** A page with a button that opened a dialog of three controls, and one control behind it. */
function page() {
  document.body.innerHTML = `
    <button id="opener">Help</button>
    <button id="behind">Behind</button>
    <div id="dialog" role="dialog" aria-modal="true" tabindex="-1">
      <a id="first" href="#x">First</a>
      <input id="middle" />
      <button id="disabled" disabled>Off</button>
      <button id="last">Close</button>
    </div>`;
  const el = (id: string) => document.getElementById(id) as HTMLElement;
  el('opener').focus();
  return el;
}

function press(key: string, shiftKey = false) {
  const e = new KeyboardEvent('keydown', { key, shiftKey, bubbles: true, cancelable: true });
  document.activeElement?.dispatchEvent(e);
  return e;
}

describe('modal', () => {
  afterEach(() => {
    document.body.innerHTML = '';
  });

  it('moves focus into the dialog, to the control marked data-autofocus when there is one', () => {
    const el = page();
    el('last').setAttribute('data-autofocus', '');
    const action = modal(el('dialog'), { onclose: () => {} });
    expect(document.activeElement).toBe(el('last'));
    action.destroy();
  });

  it('keeps Tab and Shift+Tab inside the dialog, skipping disabled controls', () => {
    const el = page();
    const action = modal(el('dialog'), { onclose: () => {} });
    expect(document.activeElement).toBe(el('first'));
    el('last').focus();
    expect(press('Tab').defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(el('first'));
    expect(press('Tab', true).defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(el('last'));
    // In the middle, Tab is the browser's own.
    el('middle').focus();
    expect(press('Tab').defaultPrevented).toBe(false);
    action.destroy();
  });

  it('brings focus that lands behind the dialog back into it', () => {
    const el = page();
    const action = modal(el('dialog'), { onclose: () => {} });
    el('behind').focus();
    expect(el('dialog').contains(document.activeElement)).toBe(true);
    action.destroy();
  });

  it('closes on Escape, wherever focus is, unless it may not close yet', () => {
    const el = page();
    const onclose = vi.fn();
    let busy = true;
    const action = modal(el('dialog'), { onclose, closable: () => !busy });
    press('Escape');
    expect(onclose).not.toHaveBeenCalled();
    busy = false;
    press('Escape');
    expect(onclose).toHaveBeenCalledOnce();
    action.destroy();
  });

  it('gives focus back to what opened it when it goes', () => {
    const el = page();
    const action = modal(el('dialog'), { onclose: () => {} });
    expect(document.activeElement).not.toBe(el('opener'));
    action.destroy();
    expect(document.activeElement).toBe(el('opener'));
    // Once gone it no longer holds focus or listens for Escape.
    el('behind').focus();
    expect(document.activeElement).toBe(el('behind'));
  });
});
