import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import EvidenceSection from './EvidenceSection.svelte';
import { mockBackend } from './mockBackend';
import type { EvidenceAllReport, EvidenceProgress, RepositoryStatus } from '../../api/types';

const django: RepositoryStatus = { name: 'django/django', path: '/src/django', base_commits: 4, held: 3, problem: null };

describe('EvidenceSection', () => {
  afterEach(() => clearMocks());

  it('lists clones and registers one by name and the folder picked', async () => {
    let repos: RepositoryStatus[] = [django];
    const calls = mockBackend({
      list_repositories: () => repos,
      'plugin:dialog|open': () => '/src/astropy',
      add_repository: (args) => {
        const added = { name: args.name as string, path: args.path as string, base_commits: 2, held: 2, problem: null };
        repos = [...repos, added];
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
      list_repositories: () => [django],
      evidence_all: (args) => {
        channel = args.on_progress as typeof channel;
        return new Promise((resolve) => (finish = resolve));
      },
    });
    const { getByTestId, findByTestId, container } = render(EvidenceSection, { active: true });
    await fireEvent.click(getByTestId('evidence-all'));
    await findByTestId('evidence-progress');
    channel!.onmessage({ done: 2, total: 5, case: 'django__django-11099' });
    await waitFor(() => expect(getByTestId('evidence-progress').textContent).toContain('2 of 5 · django__django-11099'));
    const bar = container.querySelector('progress')!;
    expect([bar.value, bar.max]).toEqual([2, 5]);
    finish({ computed: 3, cached: 1, skipped: [{ case: 'sympy__sympy-20590', repo: 'sympy/sympy', kind: 'no_clone', reason: 'No clone of sympy/sympy is registered.' }] });
    expect((await findByTestId('evidence-result')).textContent).toBe('Computed 3, already cached 1, skipped 1.');
    expect(getByTestId('evidence-skipped').textContent).toContain('No clone of sympy/sympy is registered.');
    expect(container.querySelector('progress')).toBeNull();
  });

  it('cancels a run and says what a stopped run keeps', async () => {
    let reject: (e: unknown) => void = () => {};
    const calls = mockBackend({
      list_repositories: () => [],
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
});
