// Keyboard handling for the form, kept out of the components so it can be tested alone.
import type { JsonValue, Question } from '../api/types';

export type FormAction =
  | { kind: 'pick'; value: JsonValue }
  | { kind: 'submitAndNext' }
  | { kind: 'save' }
  | { kind: 'help' }
  | { kind: 'none' };

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

export const SHORTCUTS: { keys: string; action: string }[] = [
  { keys: '0 – 9', action: 'Pick that value on a scale or choice question (first option is the first digit shown)' },
  { keys: 'Tab / Shift+Tab', action: 'Next / previous question' },
  { keys: 'Ctrl+Enter', action: 'Submit and open the next task' },
  { keys: 'Ctrl+S', action: 'Save the draft now (it also saves itself within a second)' },
  { keys: 'Alt+1 … Alt+7', action: 'Switch task tab (issue, gold patch, test patch, …)' },
  { keys: 'Ctrl+= / Ctrl+- / Ctrl+0', action: 'Zoom the window in, out, back to 100% (kept for the next start)' },
  { keys: 'Arrow keys', action: 'Move between the task’s tabs, or the rows of a list' },
  { keys: '?', action: 'Show or hide this help' },
  { keys: 'Escape', action: 'Close this help' },
];

/** The digit a rater presses for an option: its numeric value when it has one, else its 1-based position. */
export function optionKey(question: Question, index: number): string {
  const numeric = question.options.every((o) => typeof o.value === 'number' && o.value >= 0 && o.value <= 9);
  if (numeric) return String(question.options[index].value);
  return String(index + 1);
}

/**
 * What a key press means. `question` is the focused question (or null), `inText` tells whether
 * focus is in a text field, where digits and `?` are typed, not shortcuts.
 */
export function actionForKey(e: KeyLike, question: Question | null, inText: boolean): FormAction {
  const mod = e.ctrlKey || e.metaKey;
  if (mod && e.key === 'Enter') return { kind: 'submitAndNext' };
  if (mod && (e.key === 's' || e.key === 'S')) return { kind: 'save' };
  if (inText || mod || e.altKey) return { kind: 'none' };
  if (e.key === '?') return { kind: 'help' };
  if (question && /^[0-9]$/.test(e.key) && question.kind !== 'text') {
    const index = question.options.findIndex((_, i) => optionKey(question, i) === e.key);
    if (index >= 0) return { kind: 'pick', value: question.options[index].value };
  }
  return { kind: 'none' };
}
