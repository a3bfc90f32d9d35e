import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import App from './App.svelte';
import { mockBackend } from './lib/views/coordinator/mockBackend';
import { questionnaire } from './lib/testing/fixtures';
import type { ProjectInfo, RaterSummary } from './lib/api/types';

const raters: RaterSummary[] = [{ name: 'ana', active: true, assigned: 2, submitted: 0 }];

/** The app started on `project`, with a rater's panes that have nothing to do. */
function start(project: ProjectInfo) {
  const calls = mockBackend({
    open_startup_project: () => project,
    list_raters: () => raters,
    sign_in: (args) => args.role,
    rater_queue: () => [],
    project_questionnaire: () => questionnaire,
  });
  return { calls, ...render(App) };
}

describe('App', () => {
  afterEach(() => clearMocks());

  it('signs in as the rater a package is bound to at once: no picker and no switching', async () => {
    const { calls, findByTestId, getByTestId, queryByTestId, container } = start({ path: '/home/ana/panel-ana.verity', questionnaire: 'SWE-bench', bound_rater: 'ana' });
    expect((await findByTestId('current-role')).textContent).toBe('ana');
    expect(getByTestId('bound').textContent).toBe('ana’s package');
    expect(queryByTestId('sign-out')).toBeNull();
    expect(queryByTestId('coordinator')).toBeNull();
    expect(container.textContent).not.toContain('Who is using Verity?');
    await waitFor(() => expect(calls.some((c) => c.cmd === 'rater_queue')).toBe(true));
    expect(calls.find((c) => c.cmd === 'rater_queue')!.args).toEqual({ rater: 'ana' });
    // The shell signed ana in when it opened the package; the app asks nobody to choose.
    expect(calls.some((c) => c.cmd === 'sign_in' || c.cmd === 'list_raters')).toBe(false);

    // Another project can still be opened; the start screen offers the way back.
    await fireEvent.click(getByTestId('other-project'));
    expect(container.textContent).toContain('Back to panel-ana.verity');
  });

  it('names a rater’s login on a shared server as theirs', async () => {
    const { findByTestId } = start({ path: 'postgres://verity.example.org/panel', questionnaire: 'SWE-bench', bound_rater: 'ana' });
    expect((await findByTestId('bound')).textContent).toBe('ana’s login');
  });

  it('asks who is using a project bound to nobody, and lets them switch', async () => {
    const { calls, findByTestId, getByTestId, queryByTestId } = start({ path: '/p/panel.verity', questionnaire: 'SWE-bench', bound_rater: null });
    await fireEvent.click(await findByTestId('rater'));
    expect((await findByTestId('current-role')).textContent).toBe('ana');
    expect(calls.find((c) => c.cmd === 'sign_in')!.args).toEqual({ role: { kind: 'rater', name: 'ana' } });
    expect(queryByTestId('bound')).toBeNull();
    await fireEvent.click(getByTestId('sign-out'));
    expect(await findByTestId('coordinator')).toBeTruthy();
  });
});
