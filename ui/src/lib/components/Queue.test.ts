import { describe, expect, it } from 'vitest';
import { fireEvent, render } from '@testing-library/svelte';
import Queue from './Queue.svelte';
import type { QueueItem } from '../api/types';

const items: QueueItem[] = Array.from({ length: 450 }, (_, i) => ({
  instance_id: `o__r-${i + 1}`, repo: 'o/r', title: `task ${i + 1}`, status: i % 3 === 0 ? 'submitted' : 'to_do', active_ms: 0,
}));

describe('Queue', () => {
  it('renders a long queue a page at a time', async () => {
    const { container, getByTestId } = render(Queue, { items, selected: null, onselect: () => {} });
    expect(container.querySelectorAll('[data-testid="queue-item"]')).toHaveLength(200);
    expect(getByTestId('show-more').textContent).toBe('Show 200 more (250 not shown)');
    await fireEvent.click(getByTestId('show-more'));
    await fireEvent.click(getByTestId('show-more'));
    expect(container.querySelectorAll('[data-testid="queue-item"]')).toHaveLength(450);
    expect(container.querySelector('[data-testid="show-more"]')).toBeNull();
    expect(getByTestId('queue-summary').textContent).toBe('150 / 450 done');
  });

  it('pages what the search and filter leave', async () => {
    const { container, getByLabelText, getByText } = render(Queue, { items, selected: null, onselect: () => {} });
    await fireEvent.click(getByText('Done'));
    expect(container.querySelectorAll('[data-testid="queue-item"]')).toHaveLength(150);
    await fireEvent.input(getByLabelText('Search tasks'), { target: { value: 'o__r-1' } });
    const ids = [...container.querySelectorAll('[data-testid="queue-item"] .id')].map((e) => e.textContent);
    expect(ids.every((id) => id?.startsWith('o__r-1'))).toBe(true);
    expect(container.querySelector('[data-testid="show-more"]')).toBeNull();
  });
});

describe('Queue while loading', () => {
  it('says it is loading instead of "No task matches", and is busy', () => {
    const { container, getByTestId } = render(Queue, { items: [], loading: true, selected: null, onselect: () => {} });
    expect(container.textContent).not.toContain('No task matches.');
    expect(container.textContent).toContain('Loading…');
    expect(getByTestId('queue-summary').textContent).toBe('Loading…');
    expect(container.querySelector('nav')!.getAttribute('aria-busy')).toBe('true');
  });

  it('says no task matches once loaded empty', () => {
    const { container, getByTestId } = render(Queue, { items: [], loading: false, selected: null, onselect: () => {} });
    expect(container.textContent).toContain('No task matches.');
    expect(getByTestId('queue-summary').textContent).toBe('0 / 0 done');
    expect(container.querySelector('nav')!.getAttribute('aria-busy')).toBe('false');
  });
});
