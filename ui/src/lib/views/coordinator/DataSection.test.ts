import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import DataSection from './DataSection.svelte';
import { mockBackend } from './mockBackend';

describe('DataSection', () => {
  afterEach(() => clearMocks());

  it('exports the chosen format with its rule to the path picked in the save dialog', async () => {
    const calls = mockBackend({ 'plugin:dialog|save': () => '/tmp/out/labels.csv', export_project: () => 12 });
    const { getByTestId, findByTestId } = render(DataSection);
    await fireEvent.click(getByTestId('format-csv'));
    await fireEvent.change(getByTestId('export-rule'), { target: { value: 'majority' } });
    await fireEvent.click(getByTestId('export'));
    expect((await findByTestId('export-result')).textContent).toBe('Wrote 12 rows to /tmp/out/labels.csv.');
    const dialog = calls.find((c) => c.cmd === 'plugin:dialog|save')!.args.options as { defaultPath: string; filters: { extensions: string[] }[] };
    expect(dialog.defaultPath).toBe('verity-tasks.csv');
    expect(dialog.filters[0].extensions).toEqual(['csv']);
    expect(calls.find((c) => c.cmd === 'export_project')!.args).toEqual({
      format: 'csv',
      options: { rule: 'majority', reference: null, history: false },
      out_path: '/tmp/out/labels.csv',
    });
  });

  it('sends no rule for a format without ensemble labels, and nothing when the dialog is dismissed', async () => {
    let path: string | null = null;
    const calls = mockBackend({ 'plugin:dialog|save': () => path, export_project: () => 1 });
    const { getByTestId, findByTestId } = render(DataSection);
    await fireEvent.click(getByTestId('format-answers-jsonl'));
    expect((getByTestId('export-rule') as HTMLSelectElement).disabled).toBe(true);
    await fireEvent.click(getByTestId('export'));
    await Promise.resolve();
    expect(calls.some((c) => c.cmd === 'export_project')).toBe(false);
    path = '/tmp/answers.jsonl';
    await fireEvent.click(getByTestId('export'));
    expect((await findByTestId('export-result')).textContent).toBe('Wrote 1 row to /tmp/answers.jsonl.');
    expect(calls.find((c) => c.cmd === 'export_project')!.args).toEqual({
      format: 'answers-jsonl',
      options: { rule: null, reference: null, history: false },
      out_path: '/tmp/answers.jsonl',
    });
  });

  it('shows an export error as its sentence', async () => {
    mockBackend({
      'plugin:dialog|save': () => '/read-only/x.jsonl',
      export_project: () => { throw { code: 'write', message: 'Could not write /read-only/x.jsonl: permission denied.' }; },
    });
    const { getByTestId, findByRole } = render(DataSection);
    await fireEvent.click(getByTestId('export'));
    expect((await findByRole('alert')).textContent).toBe('Could not write /read-only/x.jsonl: permission denied.');
  });

  it('imports with a progress bar and says when an import was stopped', async () => {
    let channel: { onmessage: (p: unknown) => void } | undefined;
    let reject: (e: unknown) => void = () => {};
    const calls = mockBackend({
      'plugin:dialog|open': () => ['/data/a.jsonl', '/data/b.jsonl'],
      import_paths: (args) => {
        channel = args.on_progress as typeof channel;
        return new Promise((_, no) => (reject = no));
      },
      cancel_job: () => null,
    });
    const { getByTestId, findByTestId, findByRole, container } = render(DataSection);
    await fireEvent.click(getByTestId('import'));
    await findByTestId('cancel-import');
    channel!.onmessage({ path: '/data/b.jsonl', paths_done: 1, paths_total: 2, records: 40 });
    await Promise.resolve();
    expect(container.querySelector('.job')!.textContent).toContain('40 records · file 2 of 2');
    await fireEvent.click(getByTestId('cancel-import'));
    expect(calls.some((c) => c.cmd === 'cancel_job')).toBe(true);
    reject({ code: 'cancelled', message: 'cancelled' });
    expect((await findByRole('alert')).textContent).toBe('Import stopped; nothing was imported.');
    expect(container.querySelector('progress')).toBeNull();
  });
});
