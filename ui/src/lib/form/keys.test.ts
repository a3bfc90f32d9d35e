import { describe, expect, it } from 'vitest';
import { actionForKey, optionKey } from './keys';
import { questionnaire } from '../testing/fixtures';

const q = (id: string) => questionnaire.sections.flatMap((s) => s.questions).find((x) => x.id === id)!;
const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) => ({
  key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods,
});

describe('keyboard handling', () => {
  it('a digit picks the scale value with that number', () => {
    expect(actionForKey(key('2'), q('underspecified'), false)).toEqual({ kind: 'pick', value: 2 });
    expect(actionForKey(key('0'), q('underspecified'), false)).toEqual({ kind: 'pick', value: 0 });
    expect(actionForKey(key('7'), q('underspecified'), false)).toEqual({ kind: 'none' });
  });

  it('a digit picks a string choice by position, starting at 1', () => {
    expect(optionKey(q('difficulty'), 0)).toBe('1');
    expect(actionForKey(key('2'), q('difficulty'), false)).toEqual({ kind: 'pick', value: '15 min - 1 hour' });
  });

  it('digits are text inside a text field', () => {
    expect(actionForKey(key('1'), q('underspecified_notes'), true)).toEqual({ kind: 'none' });
    expect(actionForKey(key('?'), q('underspecified_notes'), true)).toEqual({ kind: 'none' });
  });

  it('Ctrl+Enter submits and Ctrl+S saves, even in a text field', () => {
    expect(actionForKey(key('Enter', { ctrlKey: true }), null, true)).toEqual({ kind: 'submitAndNext' });
    expect(actionForKey(key('s', { ctrlKey: true }), null, true)).toEqual({ kind: 'save' });
    expect(actionForKey(key('Enter', { metaKey: true }), null, false)).toEqual({ kind: 'submitAndNext' });
  });

  it('? opens help outside text fields; modified digits are not picks', () => {
    expect(actionForKey(key('?'), null, false)).toEqual({ kind: 'help' });
    expect(actionForKey(key('1', { altKey: true }), q('underspecified'), false)).toEqual({ kind: 'none' });
  });
});
