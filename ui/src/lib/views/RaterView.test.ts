import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import RaterView from './RaterView.svelte';
import { patch, questionnaire } from '../testing/fixtures';
import type { AnswerView, CaseView, QueueItem } from '../api/types';

function caseView(id: string): CaseView {
  return {
    instance_id: id, repo: 'o/r', base_commit: 'abcdef0123456789', revision: 1, title: `Title of ${id}`, pr_url: 'https://github.com/o/r/pull/1',
    problem_html: '<p>Issue <a href="https://e.org" rel="noopener noreferrer">link</a></p>', hints_html: null, requirements_html: null, interface_html: null,
    gold_patch: { view: patch, error: null, raw: null }, test_patch: { view: patch, error: null, raw: null },
    fail_to_pass: [{ id: 'tests/test_calc.py::test_add', location: { file: 0, hunk: 0, line: 2 } }], pass_to_pass: [],
  };
}

function fakeBackend() {
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
      case: c, rater: 'ana', status, values, answer_revision: status === 'submitted' ? 1 : 0, case_revision: 1,
      saved_at: '2026-01-01T10:00:00Z', questionnaire: 'swe-bench-verified 1.0.0', reason: null, unchanged: false,
    });
    switch (cmd) {
      case 'rater_queue': return queue;
      case 'project_questionnaire': return questionnaire;
      case 'case_view': return caseView(args.instance_id as string);
      case 'current_answer': return answers.get(args.case as string) ?? { ...view(args.case as string, 'to_do', {}), saved_at: null };
      case 'save_draft': {
        const req = args.req as { case: string; values: AnswerView['values'] };
        const v = view(req.case, 'in_progress', req.values);
        answers.set(req.case, v);
        return v;
      }
      case 'submit_answer': {
        const req = args.req as { case: string; values: AnswerView['values'] };
        const v = view(req.case, 'submitted', req.values);
        answers.set(req.case, v);
        return v;
      }
      case 'record_time': return null;
      default: throw { code: 'unknown', message: `unexpected command ${cmd}` };
    }
  });
  return calls;
}

describe('RaterView', () => {
  afterEach(() => clearMocks());

  it('autosaves an edit within a second, then submits and opens the next task', async () => {
    const calls = fakeBackend();
    const { container, findByTestId, getByTestId } = render(RaterView, { rater: 'ana' });
    expect((await findByTestId('task-id')).textContent).toBe('a-1');

    const radio = container.querySelector('#opt-underspecified-0') as HTMLInputElement;
    radio.focus();
    await fireEvent.keyDown(radio, { key: '1' });
    await waitFor(() => expect(calls.some((c) => c.cmd === 'save_draft')).toBe(true), { timeout: 1000 });
    const saved = calls.find((c) => c.cmd === 'save_draft')!.args.req as { values: Record<string, unknown>; case: string };
    expect(saved).toMatchObject({ case: 'a-1', values: { underspecified: 1 } });
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
    const { container, findByTestId, getByTestId } = render(RaterView, { rater: 'ana' });
    await findByTestId('task-id');
    await fireEvent.input(container.querySelector('#text-underspecified_notes')!, { target: { value: 'x'.repeat(40) } });
    await fireEvent.click(getByTestId('submit'));
    await waitFor(() => expect(getByTestId('error').textContent).toMatch(/not meet the rules/));
    expect(container.textContent).toContain('needs at least 100 characters; it has 40');
    expect(calls.some((c) => c.cmd === 'submit_answer')).toBe(false);
    expect(getByTestId('task-id').textContent).toBe('a-1');
  });

  it('shows a command error as its message', async () => {
    mockIPC((cmd) => {
      if (cmd === 'rater_queue') throw { code: 'not_found', message: 'The project has no rater named "ana".' };
      return questionnaire;
    });
    const { findByTestId } = render(RaterView, { rater: 'ana' });
    expect((await findByTestId('error')).textContent).toBe('The project has no rater named "ana".');
  });
});
