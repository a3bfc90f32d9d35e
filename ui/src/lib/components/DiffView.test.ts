import { describe, expect, it } from 'vitest';
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
    const heads = container.querySelectorAll('button.file-head');
    expect(heads[0].getAttribute('aria-expanded')).toBe('true');
    expect(heads[3].getAttribute('aria-expanded')).toBe('false');
    // 3 open files of 600 lines, 400 rows each until "show more".
    expect(container.querySelectorAll('tr.line')).toHaveLength(1200);
    await fireEvent.click(container.querySelector('button.more')!);
    expect(container.querySelectorAll('tr.line')).toHaveLength(1400);
    expect(container.querySelectorAll('button.more')).toHaveLength(2);
    expect(getByText('pkg/file_0.py')).toBeTruthy();
    // jsdom builds 1,400 rows slowly on a loaded 2-core machine; this is not a timing test.
  }, 60_000);

  it('says so when a patch is empty', () => {
    const { getByText } = render(DiffView, { patch: { files: [], added: 0, removed: 0 }, emptyText: 'No gold patch.' });
    expect(getByText('No gold patch.')).toBeTruthy();
  });
});
