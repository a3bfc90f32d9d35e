import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import App from './App.svelte';
import { mockBackend } from './lib/views/coordinator/mockBackend';
import { questionnaire } from './lib/testing/fixtures';
import type { ProjectInfo, RaterSummary, RecentProject, Startup } from './lib/api/types';
import type { Handlers } from './lib/views/coordinator/mockBackend';

const raters: RaterSummary[] = [{ name: 'ana', active: true, assigned: 2, submitted: 0, kind: 'human' }];

/** The app started on `startup` (a project, or a server to ask about), with a rater's panes
 * that have nothing to do; `more` answers further commands. */
function startWith(startup: Startup, more: Handlers = {}) {
  const calls = mockBackend({
    open_startup_project: () => startup,
    list_raters: () => raters,
    sign_in: (args) => args.role,
    sign_out: () => null,
    next_task: () => null,
    queue_page: () => ({ total: 0, offset: 0, counts: { to_do: 0, in_progress: 0, submitted: 0 }, items: [] }),
    project_questionnaire: () => questionnaire,
    recent_projects: () => [],
    ...more,
  });
  return { calls, ...render(App) };
}

/** The app started on `project`. */
function start(project: ProjectInfo) {
  return startWith({ kind: 'opened', project });
}

const URL = 'postgres://verity@db.example.org:5432/panel';

describe('App', () => {
  afterEach(() => clearMocks());

  it('puts focus on each screen’s heading, and the coordinator’s after signing in', async () => {
    const { findByText, getByTestId } = start({ path: '/home/ana/panel.verity', server: false, questionnaire: 'SWE-bench', bound_rater: null });
    const heading = await findByText('Who is using Verity?');
    await waitFor(() => expect(document.activeElement).toBe(heading));
    expect(document.querySelectorAll('main')).toHaveLength(1);
    await fireEvent.click(getByTestId('coordinator'));
    const coordinator = await findByText('Coordinator', { selector: 'h1' });
    await waitFor(() => expect(document.activeElement).toBe(coordinator));
  });

  it('signs in as the rater a package is bound to at once: no picker and no switching', async () => {
    const { calls, findByTestId, getByTestId, queryByTestId, container } = start({ path: '/home/ana/panel-ana.verity', server: false, questionnaire: 'SWE-bench', bound_rater: 'ana' });
    expect((await findByTestId('current-role')).textContent).toBe('ana');
    expect(getByTestId('bound').textContent).toBe('ana’s package');
    expect(queryByTestId('sign-out')).toBeNull();
    expect(queryByTestId('coordinator')).toBeNull();
    expect(container.textContent).not.toContain('Who is using Verity?');
    await waitFor(() => expect(calls.some((c) => c.cmd === 'next_task')).toBe(true));
    expect(calls.find((c) => c.cmd === 'next_task')!.args).toEqual({ rater: 'ana', after: null });
    // The shell signed ana in when it opened the package; the app asks nobody to choose.
    expect(calls.some((c) => c.cmd === 'sign_in' || c.cmd === 'list_raters')).toBe(false);

    // Another project can still be opened; the start screen offers the way back.
    await fireEvent.click(getByTestId('other-project'));
    expect(container.textContent).toContain('Back to panel-ana.verity');
  });

  it('names a rater’s login on a shared server as theirs', async () => {
    const login = 'postgres://verity_ana@db.example.org:5432/panel';
    const { findByTestId, getByTestId } = start({ path: login, server: true, questionnaire: 'SWE-bench', bound_rater: 'ana' });
    expect((await findByTestId('bound')).textContent).toBe('ana’s login');
    // A server project goes by its whole address, not by the last part of it.
    expect(getByTestId('project').textContent).toBe(`${login} · SWE-bench`);
  });

  it('asks for the password of the last project’s server, and keeps asking until it opens', async () => {
    let tries = 0;
    const { calls, findByTestId, getByTestId, queryByTestId, findByText } = startWith(
      { kind: 'server', url: URL, error: { code: 'store', message: 'The server asks a password.' } },
      {
        open_server_project: () => {
          tries += 1;
          if (tries === 1) throw { code: 'store', message: 'Password authentication failed for user "verity".' };
          return { path: URL, server: true, questionnaire: 'SWE-bench', bound_rater: null };
        },
      },
    );
    const url = (await findByTestId('server-url')) as HTMLInputElement;
    expect(url.value).toBe(URL);
    // The quiet try without a password failed as expected: nothing to report yet.
    expect(queryByTestId('server-error')).toBeNull();
    const password = getByTestId('server-password') as HTMLInputElement;
    expect(password.type).toBe('password');
    await fireEvent.input(password, { target: { value: 'wrong' } });
    await fireEvent.click(getByTestId('server-connect'));
    expect((await findByTestId('server-error')).textContent).toBe('Password authentication failed for user "verity".');
    expect(getByTestId('server-dialog')).toBeTruthy();

    await fireEvent.input(password, { target: { value: 's3cret' } });
    await fireEvent.click(getByTestId('server-connect'));
    await findByText('Who is using Verity?');
    expect(queryByTestId('server-dialog')).toBeNull();
    expect(calls.filter((c) => c.cmd === 'open_server_project').map((c) => c.args)).toEqual([
      { url: URL, password: 'wrong' },
      { url: URL, password: 's3cret' },
    ]);
    expect(getByTestId('project').textContent).toBe(`${URL} · SWE-bench`);
    expect(JSON.stringify({ ...localStorage })).not.toContain('s3cret');
  });

  it('says so when the last project’s server cannot be reached', async () => {
    const { findByTestId } = startWith({ kind: 'server', url: URL, error: { code: 'server_unavailable', message: 'The project’s server at db.example.org:5432 cannot be reached: connection refused.' } });
    expect((await findByTestId('server-error')).textContent).toContain('cannot be reached');
  });

  it('opens a server from the start screen, with no password to connect through ~/.pgpass', async () => {
    const { calls, findByTestId, getByTestId, queryByTestId, findByText } = startWith(
      { kind: 'opened', project: { path: '/p/panel.verity', server: false, questionnaire: 'SWE-bench', bound_rater: null } },
      { open_server_project: () => ({ path: URL, server: true, questionnaire: 'SWE-bench', bound_rater: 'ana' }) },
    );
    await fireEvent.click(await findByTestId('other-project'));
    await fireEvent.click(getByTestId('open-server'));
    expect((getByTestId('server-url') as HTMLInputElement).value).toBe('');
    await fireEvent.click(getByTestId('server-cancel'));
    expect(queryByTestId('server-dialog')).toBeNull();
    await fireEvent.click(getByTestId('open-server'));
    await fireEvent.keyDown(getByTestId('server-url'), { key: 'Escape' });
    expect(queryByTestId('server-dialog')).toBeNull();

    await fireEvent.click(getByTestId('open-server'));
    await fireEvent.input(getByTestId('server-url'), { target: { value: ` ${URL} ` } });
    await fireEvent.click(getByTestId('server-connect'));
    expect((await findByTestId('bound')).textContent).toBe('ana’s login');
    await findByText('ana');
    expect(calls.find((c) => c.cmd === 'open_server_project')!.args).toEqual({ url: URL, password: null });
  });

  it('connects as the user typed beside the address', async () => {
    const { calls, findByTestId, getByTestId } = startWith(
      { kind: 'opened', project: { path: '/p/panel.verity', server: false, questionnaire: 'SWE-bench', bound_rater: null } },
      { open_server_project: () => ({ path: 'postgres://verity_panel_ana@db.example.org:5432/panel', server: true, questionnaire: 'SWE-bench', bound_rater: 'ana' }) },
    );
    await fireEvent.click(await findByTestId('other-project'));
    await fireEvent.click(getByTestId('open-server'));
    await fireEvent.input(getByTestId('server-url'), { target: { value: 'postgres://db.example.org:5432/panel' } });
    await fireEvent.input(getByTestId('server-user'), { target: { value: 'verity_panel_ana' } });
    await fireEvent.input(getByTestId('server-password'), { target: { value: 'pw' } });
    await fireEvent.click(getByTestId('server-connect'));
    await findByTestId('bound');
    expect(calls.find((c) => c.cmd === 'open_server_project')!.args).toEqual({
      url: 'postgres://verity_panel_ana@db.example.org:5432/panel',
      password: 'pw',
    });
  });

  it('asks who is using a project bound to nobody, and lets them switch', async () => {
    const { calls, findByTestId, getByTestId, queryByTestId } = start({ path: '/p/panel.verity', server: false, questionnaire: 'SWE-bench', bound_rater: null });
    await fireEvent.click(await findByTestId('rater'));
    expect((await findByTestId('current-role')).textContent).toBe('ana');
    expect(calls.find((c) => c.cmd === 'sign_in')!.args).toEqual({ role: { kind: 'rater', name: 'ana' } });
    expect(queryByTestId('bound')).toBeNull();
    await fireEvent.click(getByTestId('sign-out'));
    expect(await findByTestId('coordinator')).toBeTruthy();
    // Signed out before the panel is listed again: a rater signed in sees only themselves.
    const order = calls.map((c) => c.cmd);
    expect(order.lastIndexOf('sign_out')).toBeLessThan(order.lastIndexOf('list_raters'));
    expect(order.lastIndexOf('sign_out')).toBeGreaterThan(order.lastIndexOf('sign_in'));
  });

  it('offers no model rater to sign in as: its answers come from the coordinator’s runs', async () => {
    const { findAllByTestId } = startWith(
      { kind: 'opened', project: { path: '/p/panel.verity', server: false, questionnaire: 'SWE-bench', bound_rater: null } },
      { list_raters: () => [...raters, { name: 'mini', active: true, assigned: 12, submitted: 12, kind: 'model' }] },
    );
    const offered = await findAllByTestId('rater');
    expect(offered.map((b) => b.querySelector('.name')!.textContent)).toEqual(['ana']);
  });

  it('lists the recent projects on the start screen: opens a file, asks a server’s password, removes a missing one', async () => {
    let recent: RecentProject[] = [
      { path: '/p/panel.verity', server: false, missing: false },
      { path: URL, server: true, missing: false },
      { path: '/gone/old.verity', server: false, missing: true },
    ];
    const { calls, findByTestId, findAllByTestId, getAllByTestId, getByTestId, findByText } = startWith(
      { kind: 'opened', project: { path: '/p/demo.verity', server: false, questionnaire: 'SWE-bench', bound_rater: null } },
      {
        recent_projects: () => recent,
        forget_recent_project: (args) => (recent = recent.filter((p) => p.path !== args.path)),
        open_project: (args) => ({ path: args.path as string, server: false, questionnaire: 'SWE-bench', bound_rater: null }),
      },
    );
    await fireEvent.click(await findByTestId('other-project'));
    const rows = await findAllByTestId('recent-project');
    expect(rows.map((r) => r.textContent!.replace(/\s+/g, ' ').trim())).toEqual([
      'panel.verity /p Remove',
      `${URL} panel server Remove`,
      'old.verity /gone missing Remove',
    ]);
    const open = getAllByTestId('recent-open') as HTMLButtonElement[];
    expect(open.map((b) => b.disabled)).toEqual([false, false, true]);

    // A missing file comes off the list.
    await fireEvent.click(getAllByTestId('recent-forget')[2]);
    await waitFor(() => expect(getAllByTestId('recent-project')).toHaveLength(2));
    expect(calls.find((c) => c.cmd === 'forget_recent_project')!.args).toEqual({ path: '/gone/old.verity' });

    // A server opens through the password dialog, its URL filled in.
    await fireEvent.click(getAllByTestId('recent-open')[1]);
    expect((getByTestId('server-url') as HTMLInputElement).value).toBe(URL);
    await fireEvent.click(getByTestId('server-cancel'));

    // A file opens at once.
    await fireEvent.click(getAllByTestId('recent-open')[0]);
    await findByText('Who is using Verity?');
    expect(calls.find((c) => c.cmd === 'open_project')!.args).toEqual({ path: '/p/panel.verity' });
    expect(getByTestId('project').textContent).toBe('panel.verity · SWE-bench');
  });

  it('says why the project named at start did not open, and offers the recent ones instead', async () => {
    const calls = mockBackend({
      open_startup_project: () => { throw { code: 'project_missing', message: 'There is no Verity project at /p/typo.verity.' }; },
      recent_projects: () => [{ path: '/p/panel.verity', server: false, missing: false }],
      open_project: (args) => ({ path: args.path as string, server: false, questionnaire: 'SWE-bench', bound_rater: null }),
      list_raters: () => raters,
    });
    const { findByTestId, findAllByTestId, getByTestId, findByText } = render(App);
    expect((await findByTestId('start-error')).textContent).toBe('There is no Verity project at /p/typo.verity.');
    expect(getByTestId('open-demo')).toBeTruthy();
    await fireEvent.click((await findAllByTestId('recent-open'))[0]);
    await findByText('Who is using Verity?');
    expect(calls.map((c) => c.cmd)).toContain('open_project');
  });

  it('shows no recent list when there is none', async () => {
    const { findByTestId, queryByTestId, getByTestId } = start({ path: '/p/panel.verity', server: false, questionnaire: 'SWE-bench', bound_rater: null });
    await fireEvent.click(await findByTestId('other-project'));
    expect(getByTestId('open-demo')).toBeTruthy();
    expect(queryByTestId('recent-project')).toBeNull();
  });
});
