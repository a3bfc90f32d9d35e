import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import EnsembleSection from './EnsembleSection.svelte';
import { mockBackend } from './mockBackend';
import { ensemble, questionnaire } from '../../testing/fixtures';

describe('EnsembleSection', () => {
  afterEach(() => clearMocks());

  it('shows the kept, filtered-out and undecided counts and the filter in words', async () => {
    const calls = mockBackend({ ensemble_labels: () => ensemble });
    const { findByTestId, getByTestId } = render(EnsembleSection, { active: true, questionnaire });
    expect((await findByTestId('ensemble-kept')).textContent).toBe('1');
    expect(getByTestId('ensemble-filtered').textContent).toBe('1');
    expect(getByTestId('ensemble-undecided').textContent).toBe('1');
    expect(getByTestId('ensemble-filter').textContent).toContain('Filter: A task is filtered out when 1.1 is at least 2 or 3.3 is Yes.');
    expect(calls).toEqual([{ cmd: 'ensemble_labels', args: { rule: null } }]);
  });

  it('tabulates each task’s labels by question, marking adjudicated ones with who decided and why', async () => {
    mockBackend({ ensemble_labels: () => ensemble });
    const { findByTestId } = render(EnsembleSection, { active: true, questionnaire });
    const table = await findByTestId('ensemble-table');
    const rows = [...table.querySelectorAll('tr')].map((tr) => [...tr.children].map((c) => c.textContent!.replace(/\s+/g, ' ').trim()));
    expect(rows).toEqual([
      ['Task', '1.1', '3.1', '3.3', 'filter_out'],
      ['astropy__astropy-7166', '0', '–', '0', 'undecided'],
      ['astropy__astropy-12907', '3', '15 min - 1 hour', '0', 'filtered out'],
      ['django__django-11099', '1', '<15 min fix', '0 adjudicated', 'kept'],
    ]);
    const adjudicated = table.querySelector('[data-testid="adjudicated-marker"]')!.closest('td')!;
    expect(adjudicated.getAttribute('title')).toBe('adjudicated · decided by coordinator · “The test is sound.”');
    expect(table.querySelector('tbody tr td[data-question="difficulty"]')!.getAttribute('title')).toBe('No rater answered it.');
  });

  it('asks again under the rule chosen', async () => {
    const calls = mockBackend({ ensemble_labels: (args) => ({ ...ensemble, rule: args.rule ?? 'max-severity' }) });
    const { findByTestId, getByTestId } = render(EnsembleSection, { active: true, questionnaire });
    await findByTestId('ensemble-kept');
    await fireEvent.change(getByTestId('ensemble-rule'), { target: { value: 'median' } });
    await waitFor(() => expect(calls.map((c) => c.args.rule)).toEqual([null, 'median']));
    await waitFor(() => expect(getByTestId('ensemble-filter').textContent).toContain('Rule median: The median answer decides each question.'));
  });
});
