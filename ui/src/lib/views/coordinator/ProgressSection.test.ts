import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import { emit } from '@tauri-apps/api/event';
import ProgressSection from './ProgressSection.svelte';
import { mockBackend } from './mockBackend';
import type { AssignReport, CaseListItem, ProgressPage, ProgressQuery, RaterSummary } from '../../api/types';
import { deferred, settle, watchFor } from '../../testing/pending';

const raters: RaterSummary[] = [
  { name: 'Amara', active: true, assigned: 2, submitted: 1, kind: 'human' },
  { name: 'Ben', active: true, assigned: 1, submitted: 0, kind: 'human' },
];

function item(instanceId: string, assignments: CaseListItem['assignments'], risk: number | null = null, sweepTier: string | null = null): CaseListItem {
  return { instance_id: instanceId, repo: 'o/r', title: 't', base_commit: null, revision: 1, has_materials: true, assignments, risk, evidence_risk: sweepTier ? 0.25 : risk, sweep_tier: sweepTier, sweep_red: sweepTier === 'codebase-plural' };
}

const cases: CaseListItem[] = [
  item('o__r-2', [{ rater: 'Amara', status: 'in_progress', active_ms: 20000 }, { rater: 'Ben', status: 'to_do', active_ms: 0 }]),
  item('o__r-10', [{ rater: 'Amara', status: 'submitted', active_ms: 180000 }], 0.875),
];

/** The Rust side's `progress_page` over `list`, in the order given (the Rust side sorts). */
function pages(list: CaseListItem[]) {
  return (args: Record<string, unknown>): ProgressPage => {
    const q = args.query as ProgressQuery;
    const matching = list.filter((c) => c.instance_id.includes(q.search.trim()) && (q.status === null || c.assignments.some((a) => a.status === q.status)));
    return { total: matching.length, offset: q.offset, items: matching.slice(q.offset, q.offset + q.limit) };
  };
}

/** The per-task table as rows of cell texts, with the header row first. */
function tableRows(table: HTMLElement) {
  return [...table.querySelectorAll('[role="row"]')].map((row) => [...row.querySelectorAll('[role="columnheader"], [role="cell"]')].map((c) => c.textContent!.trim()));
}

describe('ProgressSection', () => {
  afterEach(() => clearMocks());

  it('lists a page of tasks with one status column per rater', async () => {
    const calls = mockBackend({ progress_page: pages(cases), list_raters: () => raters });
    const { findByTestId, getByTestId } = render(ProgressSection, { active: true });
    const table = await findByTestId('case-progress');
    await waitFor(() => expect(tableRows(table)).toHaveLength(3));
    expect(tableRows(table)).toEqual([
      ['Task', 'Revision', 'Risk', 'Amara', 'Ben'],
      ['o__r-2', '1', '–', 'in progress · <1 min', 'to do'],
      ['o__r-10', '1', '0.88', 'done · 3 min', '–'],
    ]);
    expect(table.getAttribute('aria-rowcount')).toBe('3');
    expect(getByTestId('progress-total').textContent).toBe('2 tasks');
    expect(calls.find((c) => c.cmd === 'progress_page')!.args).toEqual({ query: { offset: 0, limit: 100, rater: null, status: null, repo: null, search: '', order: 'id' } });
  });

  it('sorts the tasks by risk on the Rust side when the Risk header is clicked', async () => {
    const byRisk = pages([cases[1], cases[0]]);
    const byId = pages(cases);
    const calls = mockBackend({
      progress_page: (args: Record<string, unknown>) => ((args.query as ProgressQuery).order === 'risk' ? byRisk : byId)(args),
      list_raters: () => raters,
    });
    const { findByTestId, getByTestId } = render(ProgressSection, { active: true });
    const table = await findByTestId('case-progress');
    await waitFor(() => expect(tableRows(table)).toHaveLength(3));
    await fireEvent.click(getByTestId('sort-risk'));
    await waitFor(() => expect(tableRows(table).map((r) => r[0])).toEqual(['Task', 'o__r-10', 'o__r-2']));
    expect((calls.filter((c) => c.cmd === 'progress_page').at(-1)!.args.query as ProgressQuery).order).toBe('risk');
    expect(getByTestId('sort-risk').parentElement!.getAttribute('aria-sort')).toBe('descending');
    const risks = [...table.querySelectorAll('[data-testid="task-risk"]')];
    expect(risks.map((cell) => [cell.textContent, cell.classList.contains('high')])).toEqual([
      ['0.88', true],
      ['–', false],
    ]);
    await fireEvent.click(getByTestId('sort-id'));
    await waitFor(() => expect(tableRows(table).map((r) => r[0])).toEqual(['Task', 'o__r-2', 'o__r-10']));
  });

  it('says when a task’s sweep moved its risk, and from what', async () => {
    mockBackend({ progress_page: pages([item('o__r-11', [], 0.85, 'codebase-plural'), cases[1]]), list_raters: () => raters });
    const { findByTestId } = render(ProgressSection, { active: true });
    const table = await findByTestId('case-progress');
    await waitFor(() => expect(tableRows(table)).toHaveLength(3));
    const [swept, plain] = [...table.querySelectorAll('[data-testid="task-risk"]')];
    expect(swept.textContent).toBe('0.85 · swept, moved by the task’s sweep (codebase-plural); the terms alone: 0.25');
    expect(swept.querySelector('.swept')!.getAttribute('title')).toBe('Moved by the task’s sweep (codebase-plural); the terms alone: 0.25');
    // Read aloud too, not only in a tooltip.
    expect(swept.querySelector('[data-testid="task-swept-why"]')!.classList.contains('sr-only')).toBe(true);
    expect(plain.textContent).toBe('0.88');
  });

  it('asks the Rust side for the tasks a search and a status filter leave', async () => {
    const calls = mockBackend({ progress_page: pages(cases), list_raters: () => raters });
    const { findByTestId, getByTestId } = render(ProgressSection, { active: true });
    const table = await findByTestId('case-progress');
    await waitFor(() => expect(tableRows(table)).toHaveLength(3));
    await fireEvent.change(getByTestId('progress-status'), { target: { value: 'submitted' } });
    await waitFor(() => expect(tableRows(table).map((r) => r[0])).toEqual(['Task', 'o__r-10']));
    await fireEvent.input(getByTestId('progress-search'), { target: { value: 'r-2' } });
    await waitFor(() => expect(getByTestId('progress-empty').textContent).toBe('No task matches.'));
    const last = calls.filter((c) => c.cmd === 'progress_page').at(-1)!.args.query as ProgressQuery;
    expect([last.status, last.search]).toEqual(['submitted', 'r-2']);
  });

  it('assigns k raters per task with the seed and shows the load per rater', async () => {
    const report: AssignReport = { added: 3, calibration: [], calibration_assignments: 0, cases: 2, without_materials: 0, why_none: null, load: { Ben: 2, Amara: 2 } };
    const calls = mockBackend({ progress_page: pages(cases), list_raters: () => raters, assign_raters: () => report });
    const { getByTestId, findByTestId } = render(ProgressSection, { active: true });
    await fireEvent.input(getByTestId('per-case'), { target: { value: '3' } });
    await fireEvent.input(getByTestId('seed'), { target: { value: '7' } });
    await fireEvent.click(getByTestId('assign'));
    expect((await findByTestId('assign-report')).textContent).toBe('Made 3 new assignments over 2 tasks.');
    expect(calls.find((c) => c.cmd === 'assign_raters')!.args).toEqual({ per_case: 3, seed: 7 });
    const load = [...getByTestId('assign-report').nextElementSibling!.querySelectorAll('tbody tr')].map((tr) => tr.textContent);
    expect(load).toEqual(['Amara2', 'Ben2']);
    await waitFor(() => expect(calls.filter((c) => c.cmd === 'progress_page')).toHaveLength(2));
  });

  it('adds a rater by name and refuses an empty name before calling', async () => {
    const calls = mockBackend({
      progress_page: pages(cases),
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
    mockBackend({ progress_page: () => { throw { code: 'coordinator_only', message: 'Only the coordinator sees the panel’s progress.' }; }, list_raters: () => raters });
    const { findByRole } = render(ProgressSection, { active: true });
    expect((await findByRole('alert')).textContent).toBe('Only the coordinator sees the panel’s progress.');
  });

  it('refreshes while shown when other sessions change answers, and not while hidden', async () => {
    let done = 0;
    const calls = mockBackend({ progress_page: pages(cases), list_raters: () => raters.map((r) => (r.name === 'Ben' ? { ...r, submitted: done } : r)) });
    const { container } = render(ProgressSection, { active: true });
    const listed = () => calls.filter((c) => c.cmd === 'progress_page').length;
    const perRater = () => [...container.querySelectorAll('.summary > table tbody tr')].map((tr) => tr.textContent);
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
    const calls = mockBackend({ progress_page: pages(cases), list_raters: () => raters });
    render(ProgressSection, { active: false });
    for (let i = 0; i < 5; i += 1) {
      await emit('answers-changed');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(calls.filter((c) => c.cmd === 'progress_page')).toHaveLength(0);
  });
});

describe('ProgressSection while loading', () => {
  afterEach(() => clearMocks());

  it('says it is loading, never that there are no tasks, until the first answer', async () => {
    const list = deferred<ProgressPage>();
    mockBackend({ progress_page: () => list.promise, list_raters: () => raters });
    const { container, getByTestId, findByTestId } = render(ProgressSection, { active: true });
    const empty = watchFor(container, 'The project has no tasks yet');
    await settle();
    expect(getByTestId('progress-loading').getAttribute('aria-busy')).toBe('true');
    expect(getByTestId('case-progress').getAttribute('aria-busy')).toBe('true');
    expect(empty.seen()).toBe(false);

    list.resolve({ total: 0, offset: 0, items: [] });
    expect((await findByTestId('progress-empty')).textContent).toBe('The project has no tasks yet: import them under Import & export.');
    expect(getByTestId('case-progress').getAttribute('aria-busy')).toBe('false');
    expect(container.querySelector('[data-testid="progress-loading"]')).toBeNull();
    empty.stop();
  });
});
