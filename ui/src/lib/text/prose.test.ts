import { describe, expect, it } from 'vitest';
import { blocks, runs } from './prose';

describe('questionnaire prose', () => {
  it('splits bold spans and keeps an unpaired marker as text', () => {
    expect(runs('- **IMPORTANT:** Do not click')).toEqual([
      { text: '- ', strong: false },
      { text: 'IMPORTANT:', strong: true },
      { text: ' Do not click', strong: false },
    ]);
    expect(runs('2 ** 3')).toEqual([{ text: '2 ** 3', strong: false }]);
  });

  it('groups paragraphs and list items', () => {
    const text = 'Read the issue\nbelow.\n\n- **One:** first\n- two\n\nAfter.';
    expect(blocks(text)).toEqual([
      { kind: 'paragraph', runs: [{ text: 'Read the issue below.', strong: false }] },
      { kind: 'list', items: [[{ text: 'One:', strong: true }, { text: ' first', strong: false }], [{ text: 'two', strong: false }]] },
      { kind: 'paragraph', runs: [{ text: 'After.', strong: false }] },
    ]);
  });

  it('never produces markup from the text', () => {
    const [b] = blocks('<img src=x onerror=alert(1)> **<b>x</b>**');
    expect(b).toEqual({ kind: 'paragraph', runs: [{ text: '<img src=x onerror=alert(1)> ', strong: false }, { text: '<b>x</b>', strong: true }] });
  });
});
