import { describe, expect, it } from 'vitest';
import { changeNotice } from './notice';

describe('render notice', () => {
  it('says nothing when rendering changed nothing', () => {
    expect(changeNotice({ html_as_text: 0, links_as_text: 0 })).toBeNull();
  });

  it('counts elements and links, singular and plural', () => {
    expect(changeNotice({ html_as_text: 2, links_as_text: 0 })).toBe('2 HTML elements shown as text');
    expect(changeNotice({ html_as_text: 1, links_as_text: 1 })).toBe('1 HTML element shown as text · 1 link shown as text');
    expect(changeNotice({ html_as_text: 0, links_as_text: 3 })).toBe('3 links shown as text');
  });
});
