import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import RaterView from './RaterView.svelte';
import { patch, questionnaire } from '../testing/fixtures';
import { NOT_SAVED, SUBMIT_AGAIN } from '../form/offline';
import type { AnswerView, CaseView, QueueItem, QueuePage, QueueQuery } from '../api/types';
import { mockBackend } from './coordinator/mockBackend';
import { deferred, settle, watchFor } from '../testing/pending';

function caseView(id: string): CaseView {
  return {
    instance_id: id, repo: 'o/r', base_commit: 'abcdef0123456789', revision: 1, title: `Title of ${id}`, pr_url: 'https://github.com/o/r/pull/1',
    problem: { source: 'Issue [link](https://e.org)', html: '<p>Issue <a href="https://e.org" rel="noopener noreferrer">link</a></p>', changes: { html_as_text: 0, links_as_text: 0 } },
    hints: null, requirements: null, interface: null,
    gold_patch: { view: patch, error: null, raw: null }, test_patch: { view: patch, error: null, raw: null },
    fail_to_pass: [{ id: 'tests/test_calc.py::test_add', location: { file: 0, hunk: 0, line: 2 } }], pass_to_pass: [],
  };
}

/** The Rust side's `queue_page` over `queue`. */
function queuePage(queue: QueueItem[], args: Record<string, unknown>): QueuePage {
  const q = args.query as QueueQuery;
  const matching = queue.filter((i) => q.status === null || i.status === q.status);
  const count = (status: QueueItem['status']) => queue.filter((i) => i.status === status).length;
  return { total: matching.length, offset: q.offset, counts: { to_do: count('to_do'), in_progress: count('in_progress'), submitted: count('submitted') }, items: matching.slice(q.offset, q.offset + q.limit) };
}

/** The Rust side's `next_task` over `queue`. */
function nextTask(queue: QueueItem[], after: string | null): string | null {
  if (after === null) return (queue.find((i) => i.status === 'in_progress') ?? queue.find((i) => i.status === 'to_do') ?? queue[0])?.instance_id ?? null;
  const at = queue.findIndex((i) => i.instance_id === after);
  return [...queue.slice(at + 1), ...queue.slice(0, Math.max(at, 0))].find((i) => i.status !== 'submitted')?.instance_id ?? null;
}

function mark(queue: QueueItem[], id: string, status: QueueItem['status']) {
  const item = queue.find((i) => i.instance_id === id);
  if (item && item.status !== 'submitted') item.status = status;
}

/** The Rust side of a rater's panes; the server is unreachable for the next `server.down`
 * saves and submissions. */
function fakeBackend(server = { down: 0 }) {
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  const answers = new Map<string, AnswerView>();
  const queue: QueueItem[] = [
    { instance_id: 'a-1', repo: 'o/r', title: 'first', status: 'to_do', active_ms: 0 },
    { instance_id: 'a-2', repo: 'o/r', title: 'second', status: 'to_do', active_ms: 0 },
  ];
  mockIPC((cmd, raw) => {
    const args = (raw ?? {}) as Record<string, unknown>;
    calls.push({ cmd, args });
    const view = (c: string, status: AnswerView['status'], values: AnswerView['values']): AnswerView => ({
      instance_id: c, rater: 'ana', status, values, answer_revision: status === 'submitted' ? 1 : 0, case_revision: 1,
      saved_at: '2026-01-01T10:00:00Z', questionnaire: 'swe-bench-verified 1.0.0', reason: null, unchanged: false,
    });
    if ((cmd === 'save_draft' || cmd === 'submit_answer') && server.down > 0) {
      server.down -= 1;
      throw { code: 'server_unavailable', message: 'The project’s server cannot be reached; nothing was stored.' };
    }
    switch (cmd) {
      case 'queue_page': return queuePage(queue, args);
      case 'next_task': return nextTask(queue, args.after as string | null);
      case 'project_questionnaire': return questionnaire;
      case 'case_view': return caseView(args.instance_id as string);
      case 'current_answer': return answers.get(args.case as string) ?? { ...view(args.case as string, 'to_do', {}), saved_at: null };
      case 'save_draft': {
        const req = args.req as { instance_id: string; values: AnswerView['values'] };
        const v = view(req.instance_id, 'in_progress', req.values);
        answers.set(req.instance_id, v);
        mark(queue, req.instance_id, 'in_progress');
        return v;
      }
      case 'submit_answer': {
        const req = args.req as { instance_id: string; values: AnswerView['values'] };
        const v = view(req.instance_id, 'submitted', req.values);
        answers.set(req.instance_id, v);
        mark(queue, req.instance_id, 'submitted');
        return v;
      }
      case 'record_time': return null;
      default: throw { code: 'unknown', message: `unexpected command ${cmd}` };
    }
  });
  return calls;
}

describe('RaterView', () => {
  afterEach(() => {
    clearMocks();
    localStorage.clear();
  });

  it('autosaves an edit within a second, then submits and opens the next task', async () => {
    const calls = fakeBackend();
    const { container, findByTestId, getByTestId } = render(RaterView, { rater: 'ana', project: '/p/panel.verity' });
    expect((await findByTestId('task-id')).textContent).toBe('a-1');

    const radio = container.querySelector('#opt-underspecified-0') as HTMLInputElement;
    radio.focus();
    await fireEvent.keyDown(radio, { key: '1' });
    await waitFor(() => expect(calls.some((c) => c.cmd === 'save_draft')).toBe(true), { timeout: 1000 });
    const saved = calls.find((c) => c.cmd === 'save_draft')!.args.req as { values: Record<string, unknown>; instance_id: string };
    expect(saved).toMatchObject({ instance_id: 'a-1', values: { underspecified: 1 } });
    await waitFor(() => expect(getByTestId('saved-at').textContent).toMatch(/^Draft saved at/));

    // Fill the rest and submit with Ctrl+Enter.
    const text = (id: string, value: string) => fireEvent.input(container.querySelector(`#text-${id}`)!, { target: { value } });
    await text('underspecified_notes', 'n'.repeat(100));
    (container.querySelector('#opt-difficulty-0') as HTMLInputElement).click();
    (container.querySelector('#opt-other_major_issues-0') as HTMLInputElement).click();
    await fireEvent.keyDown(container.querySelector('#text-underspecified_notes')!, { key: 'Enter', ctrlKey: true });
    await waitFor(() => expect(getByTestId('task-id').textContent).toBe('a-2'));
    const submitted = calls.find((c) => c.cmd === 'submit_answer')!.args.req as { values: Record<string, unknown> };
    expect(submitted.values).toEqual({ underspecified: 1, underspecified_notes: 'n'.repeat(100), difficulty: '<15 min fix', other_major_issues: 0 });
    await waitFor(() => expect(getByTestId('notice').textContent).toBe('Submitted a-1.'));
  });

  it('refuses to submit a 40-character justification and says why', async () => {
    const calls = fakeBackend();
    const { container, findByTestId, getByTestId } = render(RaterView, { rater: 'ana', project: '/p/panel.verity' });
    await findByTestId('task-id');
    await fireEvent.input(container.querySelector('#text-underspecified_notes')!, { target: { value: 'x'.repeat(40) } });
    await fireEvent.click(getByTestId('submit'));
    await waitFor(() => expect(getByTestId('error').textContent).toMatch(/not meet the rules/));
    expect(container.textContent).toContain('needs at least 100 characters; it has 40');
    expect(calls.some((c) => c.cmd === 'submit_answer')).toBe(false);
    expect(getByTestId('task-id').textContent).toBe('a-1');
  });

  it('gathers a refused submit’s problems in one focused summary whose links lead to the fields', async () => {
    fakeBackend();
    const { container, findByTestId, getByTestId } = render(RaterView, { rater: 'ana', project: '/p/panel.verity' });
    await findByTestId('task-id');
    const area = container.querySelector('#text-underspecified_notes') as HTMLTextAreaElement;
    await fireEvent.input(area, { target: { value: 'x'.repeat(40) } });
    // Typing shows the rule by the field, never as an alert.
    expect(container.querySelector('[data-question="underspecified_notes"] .violation')?.textContent).toContain('it has 40');
    expect(container.querySelectorAll('[role="alert"]')).toHaveLength(0);
    expect(area.getAttribute('aria-invalid')).toBe('true');
    expect(area.getAttribute('aria-describedby')).toContain('violation-underspecified_notes');

    await fireEvent.click(getByTestId('submit'));
    const summary = getByTestId('error');
    await waitFor(() => expect(document.activeElement).toBe(summary));
    expect(container.querySelectorAll('[role="alert"]')).toHaveLength(0);
    const links = [...summary.querySelectorAll('a')];
    expect(summary.textContent).toMatch(/^4 answers do not meet the rules yet:/);
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['#q-underspecified', '#q-underspecified_notes', '#q-difficulty', '#q-other_major_issues']);
    await fireEvent.click(links[1]);
    expect(document.activeElement).toBe(area);

    // The summary follows the answers and goes once every rule is met.
    await fireEvent.input(area, { target: { value: 'x'.repeat(100) } });
    expect(summary.querySelectorAll('a')).toHaveLength(3);
  });

  it('announces "Saved" and "Submitted" once each in its one live region, and puts focus on each task’s heading', async () => {
    fakeBackend();
    const { container, findByTestId, getByTestId } = render(RaterView, { rater: 'ana', project: '/p/panel.verity' });
    const heading = await findByTestId('task-id');
    expect(heading.tagName).toBe('H1');
    await waitFor(() => expect(document.activeElement).toBe(heading));
    const live = getByTestId('announcement');
    expect(live.getAttribute('role')).toBe('status');
    expect(container.querySelectorAll('[role="status"]')).toHaveLength(1);

    (container.querySelector('#opt-underspecified-1') as HTMLInputElement).click();
    await waitFor(() => expect(live.textContent).toBe('Saved'), { timeout: 2000 });
    await fireEvent.input(container.querySelector('#text-underspecified_notes')!, { target: { value: 'n'.repeat(100) } });
    (container.querySelector('#opt-difficulty-0') as HTMLInputElement).click();
    (container.querySelector('#opt-other_major_issues-0') as HTMLInputElement).click();
    await fireEvent.click(getByTestId('submit'));
    await waitFor(() => expect(live.textContent).toBe('Submitted a-1. Now on a-2.'));
    await waitFor(() => expect(document.activeElement).toBe(getByTestId('task-id')));
    expect(getByTestId('task-id').textContent).toBe('a-2');
  });

  it('opens the shortcuts as a modal dialog that Escape closes, giving focus back to the question', async () => {
    fakeBackend();
    const { container, findByTestId, queryByTestId } = render(RaterView, { rater: 'ana', project: '/p/panel.verity' });
    await findByTestId('task-id');
    const radio = container.querySelector('#opt-underspecified-0') as HTMLInputElement;
    radio.focus();
    await fireEvent.keyDown(radio, { key: '?' });
    const dialog = await findByTestId('help');
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(dialog.getAttribute('aria-labelledby')).toBe('help-title');
    expect(document.activeElement).toBe(await findByTestId('help-close'));
    await fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    await waitFor(() => expect(queryByTestId('help')).toBeNull());
    expect(document.activeElement).toBe(radio);
  });

  it('shows a command error as its message', async () => {
    mockIPC((cmd) => {
      if (cmd === 'next_task' || cmd === 'queue_page') throw { code: 'not_found', message: 'The project has no rater named "ana".' };
      return questionnaire;
    });
    const { findByTestId } = render(RaterView, { rater: 'ana', project: '/p/panel.verity' });
    expect((await findByTestId('error')).textContent).toBe('The project has no rater named "ana".');
  });

  it('keeps a draft the server cannot take on this computer, says so, and saves it when the server is back', async () => {
    const server = { down: 2 };
    const calls = fakeBackend(server);
    const { container, findByTestId, getByTestId, queryByTestId } = render(RaterView, { rater: 'ana', project: '/p/panel.verity' });
    await findByTestId('task-id');
    (container.querySelector('#opt-underspecified-2') as HTMLInputElement).click();
    expect((await findByTestId('offline', {}, { timeout: 2000 })).textContent).toBe(NOT_SAVED);
    expect(queryByTestId('error')).toBeNull();
    expect(Object.values(localStorage)).toEqual([JSON.stringify({ values: { underspecified: 2 }, case_revision: 1, submit: false })]);

    // Tried again after 1 s (still down), then after 2 s more it is saved.
    await waitFor(() => expect(queryByTestId('offline')).toBeNull(), { timeout: 5000 });
    expect(calls.filter((c) => c.cmd === 'save_draft')).toHaveLength(3);
    expect(getByTestId('saved-at').textContent).toMatch(/^Draft saved at/);
    expect(localStorage.length).toBe(0);
  }, 10_000);

  it('keeps a submission the server cannot take as a draft and asks to submit again', async () => {
    const server = { down: 0 };
    const calls = fakeBackend(server);
    const { container, findByTestId, getByTestId, queryByTestId } = render(RaterView, { rater: 'ana', project: '/p/panel.verity' });
    await findByTestId('task-id');
    (container.querySelector('#opt-underspecified-1') as HTMLInputElement).click();
    await fireEvent.input(container.querySelector('#text-underspecified_notes')!, { target: { value: 'n'.repeat(100) } });
    (container.querySelector('#opt-difficulty-0') as HTMLInputElement).click();
    (container.querySelector('#opt-other_major_issues-0') as HTMLInputElement).click();
    server.down = 1;
    await fireEvent.click(getByTestId('submit'));
    expect((await findByTestId('offline')).textContent).toBe(`${NOT_SAVED} ${SUBMIT_AGAIN}`);
    expect(getByTestId('task-id').textContent).toBe('a-1');

    await waitFor(() => expect(queryByTestId('offline')).toBeNull(), { timeout: 3000 });
    expect(getByTestId('notice').textContent).toBe('The server is back and your answers to a-1 are saved as a draft: submit them again.');
    expect(calls.filter((c) => c.cmd === 'submit_answer')).toHaveLength(1);
    const kept = calls.filter((c) => c.cmd === 'save_draft').at(-1)!.args.req as { values: Record<string, unknown> };
    expect(kept.values).toMatchObject({ underspecified: 1, difficulty: '<15 min fix' });
  }, 10_000);

  it('opens a task with the draft kept on this computer and saves it at once when the server is back', async () => {
    localStorage.setItem(`verity.kept-draft:${JSON.stringify(['/p/panel.verity', 'ana', 'a-1'])}`, JSON.stringify({ values: { underspecified: 3 }, case_revision: 1, submit: false }));
    const calls = fakeBackend();
    const { container, findByTestId, queryByTestId } = render(RaterView, { rater: 'ana', project: '/p/panel.verity' });
    await findByTestId('task-id');
    expect((container.querySelector('#opt-underspecified-3') as HTMLInputElement).checked).toBe(true);
    await waitFor(() => expect(calls.some((c) => c.cmd === 'save_draft')).toBe(true));
    expect((calls.find((c) => c.cmd === 'save_draft')!.args.req as { values: unknown }).values).toEqual({ underspecified: 3 });
    await waitFor(() => expect(queryByTestId('offline')).toBeNull());
    expect(localStorage.length).toBe(0);
  });
});

describe('RaterView while the queue loads', () => {
  afterEach(() => {
    clearMocks();
    localStorage.clear();
  });

  it('says it is loading, never that nothing is assigned, until the queue arrives', async () => {
    const next = deferred<string | null>();
    const page = deferred<QueuePage>();
    mockBackend({ next_task: () => next.promise, queue_page: () => page.promise, project_questionnaire: () => questionnaire, record_time: () => null });
    const { container, getByTestId, findByTestId } = render(RaterView, { rater: 'ana', project: '/p/panel.verity' });
    const empty = watchFor(container, 'No task is assigned to you yet.');
    await settle();
    const loading = getByTestId('queue-loading');
    expect(loading.textContent).toBe('Loading your tasks…');
    expect(loading.getAttribute('aria-busy')).toBe('true');
    expect(container.textContent).not.toContain('No task matches.');
    expect(empty.seen()).toBe(false);

    page.resolve({ total: 0, offset: 0, counts: { to_do: 0, in_progress: 0, submitted: 0 }, items: [] });
    next.resolve(null);
    expect((await findByTestId('queue-empty')).textContent).toBe('No task is assigned to you yet.');
    expect(container.querySelector('[data-testid="queue-loading"]')).toBeNull();
    empty.stop();
  });

  it('shows the error, not an empty queue, when the queue cannot be read', async () => {
    mockBackend({
      next_task: () => { throw { code: 'server_unavailable', message: 'The project’s server cannot be reached.' }; },
      queue_page: () => { throw { code: 'server_unavailable', message: 'The project’s server cannot be reached.' }; },
      project_questionnaire: () => questionnaire,
      record_time: () => null,
    });
    const { container, findByTestId } = render(RaterView, { rater: 'ana', project: '/p/panel.verity' });
    expect((await findByTestId('error')).textContent).toBe('The project’s server cannot be reached.');
    expect(container.textContent).not.toContain('No task is assigned to you yet.');
    expect(container.querySelector('[data-testid="queue-loading"]')).toBeNull();
  });
});
