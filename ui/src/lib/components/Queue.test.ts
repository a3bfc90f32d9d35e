import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import Queue from './Queue.svelte';
import type { QueueItem, QueueQuery } from '../api/types';
import { mockBackend } from '../views/coordinator/mockBackend';

const items: QueueItem[] = Array.from({ length: 50_000 }, (_, i) => ({
  instance_id: `o__r-${i + 1}`, repo: 'o/r', title: `task ${i + 1}`, status: i % 3 === 0 ? 'submitted' : 'to_do', active_ms: 0,
}));

/** The Rust side's `queue_page` over `items`. */
function queuePage(args: Record<string, unknown>) {
  const q = args.query as QueueQuery;
  const needle = q.search.trim().toLowerCase();
  const matching = items.filter((i) => (q.status === null || i.status === q.status) && `${i.instance_id} ${i.repo} ${i.title}`.includes(needle));
  return {
    total: matching.length,
    offset: q.offset,
    counts: { to_do: items.filter((i) => i.status === 'to_do').length, in_progress: 0, submitted: items.filter((i) => i.status === 'submitted').length },
    items: matching.slice(q.offset, q.offset + q.limit),
  };
}

const shownIds = (container: HTMLElement) => [...container.querySelectorAll('[data-testid="queue-item"] .id')].map((e) => e.textContent);

describe('Queue', () => {
  afterEach(() => clearMocks());

  it('renders only the rows in view of a long queue, and fetches only their page', async () => {
    const calls = mockBackend({ queue_page: queuePage });
    const { container, getByTestId } = render(Queue, { rater: 'ana', selected: null, onselect: () => {} });
    await waitFor(() => expect(getByTestId('queue-summary').textContent).toBe('16667 / 50000 done'));
    const rows = container.querySelectorAll('[data-testid="queue-item"]');
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.length).toBeLessThan(40);
    expect(shownIds(container)[0]).toBe('o__r-1');
    expect(calls.map((c) => (c.args.query as QueueQuery).offset)).toEqual([0]);
    const list = getByTestId('queue-list');
    expect(list.getAttribute('role')).toBe('list');
    expect(list.querySelector('[role="listitem"]')!.getAttribute('aria-setsize')).toBe('50000');
    // Scrolled far down, the rows there are rendered and their page fetched.
    list.scrollTop = 46 * 30_000;
    await fireEvent.scroll(list);
    await waitFor(() => expect(shownIds(container)).toContain('o__r-30001'));
    expect(container.querySelectorAll('[data-testid="queue-item"]').length).toBeLessThan(40);
    expect(calls.map((c) => (c.args.query as QueueQuery).offset)).toContain(30_000);
  });

  it('moves from task to task with the arrow keys, End and Home, rendering rows as it goes', async () => {
    mockBackend({ queue_page: queuePage });
    const { container } = render(Queue, { rater: 'ana', selected: null, onselect: () => {} });
    await waitFor(() => expect(shownIds(container).length).toBeGreaterThan(0));
    const focusedId = () => document.activeElement?.querySelector('.id')?.textContent;
    const first = container.querySelector<HTMLButtonElement>('[data-testid="queue-item"]')!;
    first.focus();
    await fireEvent.keyDown(first, { key: 'ArrowDown' });
    await waitFor(() => expect(focusedId()).toBe('o__r-2'));
    await fireEvent.keyDown(document.activeElement!, { key: 'End' });
    await waitFor(() => expect(focusedId()).toBe('o__r-50000'));
    await fireEvent.keyDown(document.activeElement!, { key: 'Home' });
    await waitFor(() => expect(focusedId()).toBe('o__r-1'));
  });

  it('asks the Rust side for what the filter and search leave', async () => {
    const calls = mockBackend({ queue_page: queuePage });
    const { container, getByLabelText, getByText, getByTestId } = render(Queue, { rater: 'ana', selected: null, onselect: () => {} });
    await waitFor(() => expect(shownIds(container).length).toBeGreaterThan(0));
    await fireEvent.click(getByText('Done'));
    await waitFor(() => expect(shownIds(container)[0]).toBe('o__r-1'));
    expect(shownIds(container)[1]).toBe('o__r-4');
    await fireEvent.input(getByLabelText('Search tasks'), { target: { value: 'task 4999' } });
    await waitFor(() => expect(shownIds(container)).toEqual(['o__r-4999', 'o__r-49990', 'o__r-49993', 'o__r-49996', 'o__r-49999']));
    const last = calls[calls.length - 1].args.query as QueueQuery;
    expect(last).toEqual({ rater: 'ana', offset: 0, limit: 100, status: 'submitted', search: 'task 4999' });
    expect(getByTestId('queue-summary').textContent).toBe('16667 / 50000 done');
    await fireEvent.input(getByLabelText('Search tasks'), { target: { value: 'no such task' } });
    await waitFor(() => expect(getByTestId('queue-none').textContent).toBe('No task matches.'));
  });

  it('shows a change to a task at once, counts included', async () => {
    mockBackend({ queue_page: queuePage });
    const { component, container, getByTestId } = render(Queue, { rater: 'ana', selected: null, onselect: () => {} });
    await waitFor(() => expect(shownIds(container).length).toBeGreaterThan(0));
    component.update('o__r-2', (i) => ({ ...i, status: 'submitted' }));
    await waitFor(() => expect(getByTestId('queue-summary').textContent).toBe('16668 / 50000 done'));
    expect(container.querySelectorAll('[data-testid="queue-item"] .dot')[1].classList.contains('submitted')).toBe(true);
  });
});

describe('Queue while loading', () => {
  afterEach(() => clearMocks());

  it('says it is loading instead of "No task matches", and is busy', () => {
    mockBackend({ queue_page: () => new Promise(() => {}) });
    const { container, getByTestId } = render(Queue, { rater: 'ana', selected: null, onselect: () => {} });
    expect(container.textContent).not.toContain('No task matches.');
    expect(getByTestId('queue-none').textContent).toBe('Loading…');
    expect(getByTestId('queue-summary').textContent).toBe('Loading…');
    expect(container.querySelector('nav')!.getAttribute('aria-busy')).toBe('true');
  });

  it('says no task matches once loaded empty', async () => {
    mockBackend({ queue_page: () => ({ total: 0, offset: 0, counts: { to_do: 0, in_progress: 0, submitted: 0 }, items: [] }) });
    const { container, getByTestId } = render(Queue, { rater: 'ana', selected: null, onselect: () => {} });
    await waitFor(() => expect(getByTestId('queue-none').textContent).toBe('No task matches.'));
    expect(getByTestId('queue-summary').textContent).toBe('0 / 0 done');
    expect(container.querySelector('nav')!.getAttribute('aria-busy')).toBe('false');
  });
});
