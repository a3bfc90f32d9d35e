import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import { emit } from '@tauri-apps/api/event';
import ProgressSection from './ProgressSection.svelte';
import { mockBackend } from './mockBackend';
import type { AssignReport, CaseListItem, RaterSummary } from '../../api/types';

const raters: RaterSummary[] = [
  { name: 'Amara', active: true, assigned: 2, submitted: 1 },
  { name: 'Ben', active: true, assigned: 1, submitted: 0 },
];

function item(instanceId: string, assignments: CaseListItem['assignments']): CaseListItem {
  return { instance_id: instanceId, repo: 'o/r', title: 't', base_commit: null, revision: 1, has_materials: true, assignments };
}

const cases: CaseListItem[] = [
  item('o__r-10', [{ rater: 'Amara', status: 'submitted', active_ms: 180000 }]),
  item('o__r-2', [{ rater: 'Amara', status: 'in_progress', active_ms: 20000 }, { rater: 'Ben', status: 'to_do', active_ms: 0 }]),
];

describe('ProgressSection', () => {
  afterEach(() => clearMocks());

  it('lists tasks in natural order with one status column per rater', async () => {
    mockBackend({ list_cases: () => cases, list_raters: () => raters });
    const { findByTestId } = render(ProgressSection, { active: true });
    const table = await findByTestId('case-progress');
    await waitFor(() => expect(table.querySelectorAll('tbody tr')).toHaveLength(2));
    const rows = [...table.querySelectorAll('tr')].map((tr) => [...tr.children].map((c) => c.textContent!.trim()));
    expect(rows).toEqual([
      ['Task', 'Revision', 'Amara', 'Ben'],
      ['o__r-2', '1', 'in progress · <1 min', 'to do'],
      ['o__r-10', '1', 'done · 3 min', '–'],
    ]);
  });

  it('assigns k raters per task with the seed and shows the load per rater', async () => {
    const report: AssignReport = { added: 3, calibration: 0, cases: 2, load: { Ben: 2, Amara: 2 } };
    const calls = mockBackend({ list_cases: () => cases, list_raters: () => raters, assign_raters: () => report });
    const { getByTestId, findByTestId } = render(ProgressSection, { active: true });
    await fireEvent.input(getByTestId('per-case'), { target: { value: '3' } });
    await fireEvent.input(getByTestId('seed'), { target: { value: '7' } });
    await fireEvent.click(getByTestId('assign'));
    expect((await findByTestId('assign-report')).textContent).toBe('Made 3 new assignments over 2 tasks.');
    expect(calls.find((c) => c.cmd === 'assign_raters')!.args).toEqual({ per_case: 3, seed: 7 });
    const load = [...getByTestId('assign-report').nextElementSibling!.querySelectorAll('tbody tr')].map((tr) => tr.textContent);
    expect(load).toEqual(['Amara2', 'Ben2']);
    await waitFor(() => expect(calls.filter((c) => c.cmd === 'list_cases')).toHaveLength(2));
  });

  it('adds a rater by name and refuses an empty name before calling', async () => {
    const calls = mockBackend({
      list_cases: () => cases,
      list_raters: () => raters,
      add_rater: (args) => ({ name: args.name, assigned: 0, submitted: 0 }),
    });
    const { getByTestId, findByTestId, findByRole } = render(ProgressSection, { active: true });
    await fireEvent.click(getByTestId('add-rater'));
    expect((await findByRole('alert')).textContent).toBe('Type the new rater’s name.');
    expect(calls.some((c) => c.cmd === 'add_rater')).toBe(false);
    await fireEvent.input(getByTestId('rater-name'), { target: { value: '  Chen Li ' } });
    await fireEvent.click(getByTestId('add-rater'));
    expect((await findByTestId('raters-notice')).textContent).toBe('Added Chen Li.');
    expect(calls.find((c) => c.cmd === 'add_rater')!.args).toEqual({ name: 'Chen Li' });
  });

  it('shows a refused command as its sentence', async () => {
    mockBackend({ list_cases: () => { throw { code: 'coordinator_only', message: 'Only the coordinator sees the panel’s progress.' }; }, list_raters: () => raters });
    const { findByRole } = render(ProgressSection, { active: true });
    expect((await findByRole('alert')).textContent).toBe('Only the coordinator sees the panel’s progress.');
  });

  it('refreshes while shown when other sessions change answers, and not while hidden', async () => {
    let done = 0;
    const calls = mockBackend({ list_cases: () => cases, list_raters: () => raters.map((r) => (r.name === 'Ben' ? { ...r, submitted: done } : r)) });
    const { container } = render(ProgressSection, { active: true });
    const listed = () => calls.filter((c) => c.cmd === 'list_cases').length;
    const perRater = () => [...container.querySelectorAll('.summary table tbody tr')].map((tr) => tr.textContent);
    await waitFor(() => expect(perRater()).toEqual(['Amara21', 'Ben10']));
    done = 1;
    // The listener is set up on mount; emit until it is there.
    await waitFor(async () => {
      await emit('answers-changed');
      expect(listed()).toBeGreaterThan(1);
    });
    await waitFor(() => expect(perRater()).toEqual(['Amara21', 'Ben11']));
  });

  it('does not refresh while hidden', async () => {
    const calls = mockBackend({ list_cases: () => cases, list_raters: () => raters });
    render(ProgressSection, { active: false });
    for (let i = 0; i < 5; i += 1) {
      await emit('answers-changed');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(calls.filter((c) => c.cmd === 'list_cases')).toHaveLength(0);
  });
});
