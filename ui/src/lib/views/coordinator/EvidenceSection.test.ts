import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import EvidenceSection from './EvidenceSection.svelte';
import { mockBackend } from './mockBackend';
import type { CloneProgress, CloneReport, EvidenceAllReport, EvidenceProgress, NeededRepository } from '../../api/types';
import { deferred, settle, watchFor } from '../../testing/pending';

const django: NeededRepository = { name: 'django/django', tasks: 5, path: '/src/django', base_commits: 4, held: 3, problem: null };
const sympy: NeededRepository = { name: 'sympy/sympy', tasks: 2, path: null, base_commits: 2, held: 0, problem: null };
const complete: NeededRepository = { name: 'astropy/astropy', tasks: 1, path: '/src/astropy', base_commits: 1, held: 1, problem: null };

describe('EvidenceSection', () => {
  afterEach(() => clearMocks());

  it('lists clones and registers one by name and the folder picked', async () => {
    let repos: NeededRepository[] = [django];
    const calls = mockBackend({
      sweeps_for_raters: () => false,
      list_needed_repositories: () => repos,
      'plugin:dialog|open': () => '/src/astropy',
      add_repository: (args) => {
        const added = { name: args.name as string, path: args.path as string, base_commits: 2, held: 2, problem: null };
        repos = [...repos, { ...added, tasks: 2 }];
        return added;
      },
    });
    const { findByTestId, getByTestId, findByRole } = render(EvidenceSection, { active: true });
    expect((await findByTestId('repositories')).textContent).toContain('3 of 4');
    await fireEvent.input(getByTestId('repository-name'), { target: { value: 'astropy' } });
    await fireEvent.click(getByTestId('add-repository'));
    expect((await findByRole('alert')).textContent).toBe('Name the repository as owner/name, for example django/django.');
    expect(calls.some((c) => c.cmd === 'plugin:dialog|open')).toBe(false);
    await fireEvent.input(getByTestId('repository-name'), { target: { value: 'astropy/astropy' } });
    await fireEvent.click(getByTestId('add-repository'));
    expect((await findByTestId('registered')).textContent).toBe('Registered astropy/astropy at /src/astropy: it holds 2 of 2 base commits.');
    expect((calls.find((c) => c.cmd === 'plugin:dialog|open')!.args.options as { directory: boolean }).directory).toBe(true);
    expect(calls.find((c) => c.cmd === 'add_repository')!.args).toEqual({ name: 'astropy/astropy', path: '/src/astropy' });
    await waitFor(() => expect(getByTestId('repositories').querySelectorAll('tbody tr')).toHaveLength(2));
  });

  it('computes evidence for every task with a progress bar and reports what was skipped', async () => {
    let channel: { onmessage: (p: EvidenceProgress) => void } | undefined;
    let finish: (r: EvidenceAllReport) => void = () => {};
    mockBackend({
      sweeps_for_raters: () => false,
      list_needed_repositories: () => [django],
      evidence_all: (args) => {
        channel = args.on_progress as typeof channel;
        return new Promise((resolve) => (finish = resolve));
      },
    });
    const { getByTestId, findByTestId, container } = render(EvidenceSection, { active: true });
    await fireEvent.click(getByTestId('evidence-all'));
    await findByTestId('evidence-progress');
    channel!.onmessage({ done: 2, total: 5, instance_id: 'django__django-11099' });
    await waitFor(() => expect(getByTestId('evidence-progress').textContent).toContain('2 of 5 · django__django-11099'));
    const bar = container.querySelector('progress')!;
    expect([bar.value, bar.max]).toEqual([2, 5]);
    finish({ computed: 3, cached: 1, skipped: [{ instance_id: 'sympy__sympy-20590', repo: 'sympy/sympy', kind: 'no_clone', reason: 'No clone of sympy/sympy is registered.' }] });
    expect((await findByTestId('evidence-result')).textContent).toBe('Computed 3, already cached 1, skipped 1.');
    expect(getByTestId('evidence-skipped').textContent).toContain('No clone of sympy/sympy is registered.');
    expect(container.querySelector('progress')).toBeNull();
  });

  it('cancels a run and says what a stopped run keeps', async () => {
    let reject: (e: unknown) => void = () => {};
    const calls = mockBackend({
      sweeps_for_raters: () => false,
      list_needed_repositories: () => [],
      evidence_all: () => new Promise((_, no) => (reject = no)),
      cancel_job: () => {
        reject({ code: 'cancelled', message: 'The job was cancelled.' });
        return null;
      },
    });
    const { getByTestId, findByTestId, findByRole } = render(EvidenceSection, { active: true });
    await fireEvent.click(getByTestId('evidence-all'));
    await fireEvent.click(await findByTestId('cancel-evidence'));
    expect(calls.some((c) => c.cmd === 'cancel_job')).toBe(true);
    expect((await findByRole('alert')).textContent).toBe('Stopped; what was computed is kept and the next run resumes.');
  });

  it('offers Clone for a repository without a clone and Fetch missing for one that lacks commits, none for a complete one', async () => {
    mockBackend({ list_needed_repositories: () => [django, sympy, complete] });
    const { findByTestId, getByTestId, queryByTestId } = render(EvidenceSection, { active: true });
    const table = await findByTestId('repositories');
    expect(table.textContent).toContain('not cloned');
    expect(getByTestId('clone-sympy/sympy').textContent).toBe('Clone');
    expect(getByTestId('clone-django/django').textContent).toBe('Fetch missing');
    expect(queryByTestId('clone-astropy/astropy')).toBeNull();
  });

  it('clones with a progress bar of objects, bytes and speed, then shows what the clone holds', async () => {
    let channel: { onmessage: (p: CloneProgress) => void } | undefined;
    let finish: (r: CloneReport) => void = () => {};
    let repos = [sympy];
    const calls = mockBackend({
      sweeps_for_raters: () => false,
      list_needed_repositories: () => repos,
      clone_repository: (args) => {
        channel = args.on_progress as typeof channel;
        return new Promise((resolve) => (finish = resolve));
      },
    });
    const { getByTestId, findByTestId, container } = render(EvidenceSection, { active: true });
    await fireEvent.click(await findByTestId('clone-sympy/sympy'));
    await findByTestId('clone-progress');
    expect(calls.find((c) => c.cmd === 'clone_repository')!.args.req).toEqual({ name: 'sympy/sympy' });
    expect((getByTestId('clone-sympy/sympy') as HTMLButtonElement).disabled).toBe(true);
    expect((getByTestId('evidence-all') as HTMLButtonElement).disabled).toBe(true);
    channel!.onmessage({
      name: 'sympy/sympy', stage: 'default_branch', commit: null, received_objects: 250, total_objects: 1000,
      indexed_deltas: 0, total_deltas: 0, received_bytes: 3 * 1024 * 1024, bytes_per_second: 1536 * 1024,
    });
    await waitFor(() =>
      expect(getByTestId('clone-progress').textContent).toContain('default branch: 250 of 1000 objects · 3.0 MiB · 1.5 MiB/s'),
    );
    const bar = container.querySelector('progress')!;
    expect([bar.value, bar.max]).toEqual([250, 1000]);
    repos = [{ ...sympy, path: '/cache/sympy/sympy.git', held: 2 }];
    finish({
      name: 'sympy/sympy', url: 'https://github.com/sympy/sympy', path: '/cache/sympy/sympy.git', resumed: false, reused: false,
      received_bytes: 4096, elapsed_ms: 20,
      commits: { base_commits: 2, held: 2, fetched: ['b'.repeat(40)], missing: [], received_bytes: 100 },
    });
    expect((await findByTestId('cloned')).textContent).toBe(
      'Cloned sympy/sympy at /cache/sympy/sympy.git: it holds 2 of 2 base commits, 1 of them fetched by id.',
    );
    await waitFor(() => expect(getByTestId('repositories').textContent).toContain('complete'));
    await waitFor(() => expect(container.querySelector('progress')).toBeNull());
  });

  it('cancels a clone and says that cloning again resumes', async () => {
    let reject: (e: unknown) => void = () => {};
    const calls = mockBackend({
      sweeps_for_raters: () => false,
      list_needed_repositories: () => [sympy],
      clone_repository: () => new Promise((_, no) => (reject = no)),
      cancel_job: () => {
        reject({ code: 'cancelled', message: 'the transfer was cancelled' });
        return null;
      },
    });
    const { findByTestId, findByRole } = render(EvidenceSection, { active: true });
    await fireEvent.click(await findByTestId('clone-sympy/sympy'));
    await fireEvent.click(await findByTestId('cancel-clone'));
    expect(calls.some((c) => c.cmd === 'cancel_job')).toBe(true);
    expect((await findByRole('alert')).textContent).toBe('Stopped cloning sympy/sympy; cloning it again resumes where it stopped.');
  });

  it('shows the sentence of a failed clone', async () => {
    mockBackend({
      sweeps_for_raters: () => false,
      list_needed_repositories: () => [sympy],
      clone_repository: () => {
        throw { code: 'not_found', message: 'no git repository exists at https://github.com/sympy/sympy: check the owner and the name (a private repository looks the same)' };
      },
    });
    const { findByTestId, findByRole } = render(EvidenceSection, { active: true });
    await fireEvent.click(await findByTestId('clone-sympy/sympy'));
    expect((await findByRole('alert')).textContent).toContain('no git repository exists at https://github.com/sympy/sympy');
  });
});

describe('EvidenceSection while loading', () => {
  afterEach(() => clearMocks());

  it('says it is loading, never that no task names a repository, until the first answer', async () => {
    const list = deferred<NeededRepository[]>();
    mockBackend({ list_needed_repositories: () => list.promise });
    const { container, getByTestId, findByText } = render(EvidenceSection, { active: true });
    const none = watchFor(container, 'No task names a repository yet');
    await settle();
    expect(getByTestId('repositories-loading').getAttribute('aria-busy')).toBe('true');
    expect(none.seen()).toBe(false);

    list.resolve([]);
    await findByText('No task names a repository yet: import tasks first.');
    expect(container.querySelector('[data-testid="repositories-loading"]')).toBeNull();
    none.stop();
  });

  it('shows sweeps to raters only when the coordinator turns them on', async () => {
    let shown = false;
    const calls = mockBackend({
      list_needed_repositories: () => [],
      sweeps_for_raters: (args) => {
        if (args.on !== null) shown = args.on as boolean;
        return shown;
      },
    });
    const { findByTestId } = render(EvidenceSection, { active: true });
    const box = (await findByTestId('sweeps-for-raters')) as HTMLInputElement;
    await waitFor(() => expect(calls.some((c) => c.cmd === 'sweeps_for_raters')).toBe(true));
    expect(box.checked).toBe(false);
    await fireEvent.click(box);
    await waitFor(() => expect(shown).toBe(true));
    expect(calls.filter((c) => c.cmd === 'sweeps_for_raters').map((c) => c.args.on)).toEqual([null, true]);
    expect(box.checked).toBe(true);
  });
});
