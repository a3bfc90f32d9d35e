import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render } from '@testing-library/svelte';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import TaskText from './TaskText.svelte';
import type { RenderedText } from '../api/types';

// What annotations::markdown renders for this source: the script shown as text, the
// javascript: link as its label and target.
const hostile: RenderedText = {
  source: 'alpha <script>alert(1)</script> [x](javascript:alert(2)) omega',
  html: '<p>alpha <span class="html-as-text">&lt;script&gt;</span>alert(1)<span class="html-as-text">&lt;/script&gt;</span> x <span class="html-as-text">(javascript:alert(2))</span> omega</p>',
  changes: { html_as_text: 1, links_as_text: 1 },
};
const plain: RenderedText = {
  source: 'Plain [link](https://e.org).',
  html: '<p>Plain <a href="https://e.org" rel="noopener noreferrer">link</a>.</p>',
  changes: { html_as_text: 0, links_as_text: 0 },
};

afterEach(() => clearMocks());

describe('TaskText', () => {
  it('says what rendering showed as text', () => {
    const { getByTestId } = render(TaskText, { text: hostile, label: 'issue', testid: 'issue' });
    expect(getByTestId('issue-notice').textContent).toBe('1 HTML element shown as text · 1 link shown as text; Source shows the text as stored.');
    expect(getByTestId('issue').textContent).toBe('alpha <script>alert(1)</script> x (javascript:alert(2)) omega');
  });

  it('shows no notice when rendering changed nothing', () => {
    const { queryByTestId, getByTestId } = render(TaskText, { text: plain, label: 'hints', testid: 'hints' });
    expect(queryByTestId('hints-notice')).toBeNull();
    expect(getByTestId('hints').querySelector('a')?.getAttribute('href')).toBe('https://e.org');
  });

  it('toggles between the rendered text and the text exactly as stored', async () => {
    const { getByTestId, queryByTestId, getByRole } = render(TaskText, { text: hostile, label: 'issue', testid: 'issue' });
    const toggle = getByRole('button', { name: 'Source of the issue' });
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    await fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    expect(queryByTestId('issue')).toBeNull();
    const source = getByTestId('issue-source');
    expect(source.tagName).toBe('PRE');
    expect(source.textContent).toBe(hostile.source);
    expect(source.querySelector('*')).toBeNull();
    await fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    expect(queryByTestId('issue-source')).toBeNull();
    expect(getByTestId('issue').innerHTML).toBe(hostile.html);
  });

  it('opens a link in the system browser instead of navigating', async () => {
    const opened: string[] = [];
    mockIPC((cmd, args) => {
      if (cmd === 'open_external') opened.push((args as { url: string }).url);
      return null;
    });
    const { getByText } = render(TaskText, { text: plain, label: 'issue', testid: 'issue' });
    await fireEvent.click(getByText('link'));
    expect(opened).toEqual(['https://e.org']);
  });
});
