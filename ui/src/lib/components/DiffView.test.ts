import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render } from '@testing-library/svelte';
import DiffView from './DiffView.svelte';
import { bigPatch, patch } from '../testing/fixtures';

describe('DiffView', () => {
  it('shows files, hunk headers, both line numbers and word highlights', () => {
    const { container, getByText } = render(DiffView, { patch });
    expect(getByText('src/calc.py')).toBeTruthy();
    expect(container.querySelector('tr.hunk')?.textContent).toContain('@@ -10,3 +10,4 @@ def add(a, b):');
    const removed = container.querySelector('tr.removed')!;
    const nums = [...removed.querySelectorAll('td.num')].map((td) => td.textContent);
    expect(nums).toEqual(['11', '']);
    expect(removed.querySelector('mark')?.textContent).toBe('-');
    expect(container.querySelector('tr.added mark')?.textContent).toBe('+');
    expect(getByText('Binary file: not shown.')).toBeTruthy();
  });

  it('collapses and expands a file', async () => {
    const { container, getAllByRole } = render(DiffView, { patch });
    const head = getAllByRole('button')[0];
    expect(head.getAttribute('aria-expanded')).toBe('true');
    await fireEvent.click(head);
    expect(head.getAttribute('aria-expanded')).toBe('false');
    expect(container.querySelectorAll('tr.line')).toHaveLength(0);
  });

  it('keeps a large patch light: files past the budget start collapsed, long files render in pages', async () => {
    const { container, getByText } = render(DiffView, { patch: bigPatch(10, 600) });
    const lines = () => container.querySelectorAll('tr.line').length;
    const heads = container.querySelectorAll('button.file-head');
    expect(heads[0].getAttribute('aria-expanded')).toBe('true');
    expect(heads[3].getAttribute('aria-expanded')).toBe('false');
    // The first frame builds 150 rows; later frames add the rest: 3 open files of 600 lines,
    // 400 rows each until "show more".
    expect(lines()).toBe(150);
    expect(container.querySelectorAll('button.more')).toHaveLength(0);
    await vi.waitFor(() => expect(lines()).toBe(1200), { timeout: 30_000 });
    expect(container.querySelectorAll('button.more')).toHaveLength(3);
    await fireEvent.click(container.querySelector('button.more')!);
    await vi.waitFor(() => expect(lines()).toBe(1400), { timeout: 30_000 });
    expect(container.querySelectorAll('button.more')).toHaveLength(2);
    expect(getByText('pkg/file_0.py')).toBeTruthy();
    // Opening a collapsed file builds its page too.
    await fireEvent.click(heads[3]);
    await vi.waitFor(() => expect(lines()).toBe(1800), { timeout: 30_000 });
    // jsdom builds rows slowly on a loaded 2-core machine; this is not a timing test.
  }, 60_000);

  it('builds every row at once when a test link points into the patch', () => {
    const { container } = render(DiffView, { patch: bigPatch(3, 600), focus: { file: 2, hunk: 0, line: 5 } });
    // The first two files' pages and all of the third, whose hunk holds the focus.
    expect(container.querySelectorAll('tr.line')).toHaveLength(1400);
    expect(container.querySelector('tr.focused td.num:nth-child(2)')?.textContent).toBe('6');
  });

  it('says so when a patch is empty', () => {
    const { getByText } = render(DiffView, { patch: { files: [], added: 0, removed: 0 }, emptyText: 'No gold patch.' });
    expect(getByText('No gold patch.')).toBeTruthy();
  });
});
