import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render } from '@testing-library/svelte';
import AnswerForm from './AnswerForm.svelte';
import { questionnaire } from '../testing/fixtures';

function setup(values: Record<string, unknown> = {}, readonly = false) {
  const onchange = vi.fn();
  const onsubmit = vi.fn();
  const onsave = vi.fn();
  const onhelp = vi.fn();
  const r = render(AnswerForm, { questionnaire, values: values as never, readonly, onchange, onsubmit, onsave, onhelp });
  return { ...r, onchange, onsubmit, onsave, onhelp };
}

describe('AnswerForm', () => {
  it('shows every question with its options, descriptions and examples', () => {
    const { getByText, container } = setup();
    expect(getByText('Is the issue well-specified?')).toBeTruthy();
    expect(getByText('Example: sympy #18030')).toBeTruthy();
    expect(container.querySelectorAll('[data-question]')).toHaveLength(5);
  });

  it('a digit on a focused scale question picks that value', async () => {
    const { container, onchange } = setup();
    const radio = container.querySelector('#opt-underspecified-0') as HTMLInputElement;
    radio.focus();
    await fireEvent.keyDown(radio, { key: '2' });
    expect(onchange).toHaveBeenCalledWith({ underspecified: 2 });
  });

  it('a digit typed in a text field is text, not a pick', async () => {
    const { container, onchange } = setup();
    const area = container.querySelector('#text-underspecified_notes') as HTMLTextAreaElement;
    await fireEvent.keyDown(area, { key: '2' });
    expect(onchange).not.toHaveBeenCalled();
  });

  it('shows the character counter and the min_chars rule while typing', async () => {
    const { container, findByText } = setup({ underspecified_notes: 'a'.repeat(40) });
    expect(container.querySelector('#count-underspecified_notes')?.textContent).toContain('40 / 100 characters minimum');
    const area = container.querySelector('#text-underspecified_notes') as HTMLTextAreaElement;
    await fireEvent.input(area, { target: { value: 'a'.repeat(40) } });
    expect(await findByText('Question 1.2 (underspecified_notes) needs at least 100 characters; it has 40.')).toBeTruthy();
  });

  it('Ctrl+Enter submits and Ctrl+S saves', async () => {
    const { container, onsubmit, onsave } = setup();
    const area = container.querySelector('#text-underspecified_notes') as HTMLTextAreaElement;
    await fireEvent.keyDown(area, { key: 'Enter', ctrlKey: true });
    await fireEvent.keyDown(area, { key: 's', ctrlKey: true });
    expect(onsubmit).toHaveBeenCalledOnce();
    expect(onsave).toHaveBeenCalledOnce();
  });

  it('a submitted answer is read-only', async () => {
    const { container, onchange } = setup({ underspecified: 1 }, true);
    const radio = container.querySelector('#opt-underspecified-2') as HTMLInputElement;
    await fireEvent.keyDown(radio, { key: '2' });
    expect(onchange).not.toHaveBeenCalled();
    expect((container.querySelector('fieldset') as HTMLFieldSetElement).disabled).toBe(true);
  });
});
