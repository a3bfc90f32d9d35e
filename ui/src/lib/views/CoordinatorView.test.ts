import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import CoordinatorView from './CoordinatorView.svelte';
import { mockBackend } from './coordinator/mockBackend';
import { agreement, disagreements, ensemble, questionnaire } from '../testing/fixtures';

function backend() {
  return mockBackend({
    project_questionnaire: () => questionnaire,
    progress_page: () => ({ total: 0, offset: 0, items: [] }),
    list_raters: () => [],
    project_agreement: () => agreement,
    disagreement_page: () => ({ total: disagreements.length, all: disagreements.length, open: 2, questions: [], offset: 0, items: disagreements }),
    ensemble_labels: () => ensemble,
    list_needed_repositories: () => [],
  });
}

describe('CoordinatorView', () => {
  afterEach(() => clearMocks());

  it('has a side nav with one button per section', () => {
    backend();
    const { getByTestId } = render(CoordinatorView);
    const ids = ['coord-progress', 'coord-agreement', 'coord-disagreements', 'coord-ensemble', 'coord-evidence', 'coord-data'];
    expect(ids.map((id) => getByTestId(id).textContent)).toEqual(['Progress', 'Agreement', 'Disagreements', 'Ensemble', 'Repositories & evidence', 'Import & export']);
  });

  it('opens a section on first visit only, and keeps it while another is shown', async () => {
    const calls = backend();
    const { getByTestId, findByTestId, findAllByTestId } = render(CoordinatorView);
    await findByTestId('case-progress');
    expect(calls.some((c) => c.cmd === 'project_agreement')).toBe(false);

    await fireEvent.click(getByTestId('coord-agreement'));
    const dashboard = await findByTestId('agreement-dashboard');
    await waitFor(() => expect(dashboard.textContent).toContain('Krippendorff'));
    await fireEvent.click(getByTestId('coord-disagreements'));
    expect((await findAllByTestId('disagreement'))[0].textContent).toContain('0 · Well-specified');
    expect(dashboard.closest('[hidden]')).not.toBeNull();

    await fireEvent.click(getByTestId('coord-agreement'));
    expect(dashboard.closest('[hidden]')).toBeNull();
    expect(calls.filter((c) => c.cmd === 'project_agreement')).toHaveLength(1);
    expect(getByTestId('coord-agreement').getAttribute('aria-current')).toBe('page');
  });

  it('says why when the questionnaire cannot be read', async () => {
    mockBackend({
      project_questionnaire: () => { throw { code: 'no_project', message: 'No project is open.' }; },
      progress_page: () => ({ total: 0, offset: 0, items: [] }),
      list_raters: () => [],
    });
    const { findByText } = render(CoordinatorView);
    expect(await findByText('No project is open.')).toBeTruthy();
  });
});
