import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import DataSection from './DataSection.svelte';
import { mockBackend, type Handlers } from './mockBackend';
import type { ExportFormatInfo } from '../../api';

// The formats as the Rust side lists them (`export_formats`), a few of them.
const formats: ExportFormatInfo[] = [
  { format: 'jsonl', title: 'Tasks (JSON lines)', description: 'One line per task.', file_name: 'verity-tasks.jsonl', file_type: 'JSON lines', extension: 'jsonl', uses_rule: true, folder: false },
  { format: 'csv', title: 'Tasks (CSV)', description: 'One row per task.', file_name: 'verity-tasks.csv', file_type: 'CSV', extension: 'csv', uses_rule: true, folder: false },
  { format: 'answers-jsonl', title: 'Answers (JSON lines)', description: 'One line per task and rater.', file_name: 'verity-answers.jsonl', file_type: 'JSON lines', extension: 'jsonl', uses_rule: false, folder: false },
  { format: 'hub', title: 'Hugging Face dataset (folder)', description: 'A dataset folder for the Hub.', file_name: 'verity-dataset', file_type: 'Folder', extension: '', uses_rule: true, folder: true },
];

const backend = (handlers: Handlers) => mockBackend({ export_formats: () => formats, ...handlers });

describe('DataSection', () => {
  afterEach(() => clearMocks());

  it('lists the file formats the Rust side gives, each with its title and what it writes (the dataset folder is Publish\'s)', async () => {
    backend({});
    const { findByTestId, getAllByRole } = render(DataSection);
    expect((await findByTestId('format-answers-jsonl')).closest('label')!.textContent).toContain('Answers (JSON lines) One line per task and rater.');
    expect(getAllByRole('radio').map((r) => (r as HTMLInputElement).value)).toEqual(['jsonl', 'csv', 'answers-jsonl']);
  });

  it('exports the chosen format with its rule to the path picked in the save dialog', async () => {
    const calls = backend({ 'plugin:dialog|save': () => '/tmp/out/labels.csv', export_project: () => 12 });
    const { getByTestId, findByTestId } = render(DataSection);
    await fireEvent.click(await findByTestId('format-csv'));
    await fireEvent.change(getByTestId('export-rule'), { target: { value: 'majority' } });
    await fireEvent.click(getByTestId('export'));
    expect((await findByTestId('export-result')).textContent).toBe('Wrote 12 rows to /tmp/out/labels.csv.');
    const dialog = calls.find((c) => c.cmd === 'plugin:dialog|save')!.args.options as { defaultPath: string; filters: { name: string; extensions: string[] }[] };
    expect(dialog.defaultPath).toBe('verity-tasks.csv');
    expect(dialog.filters).toEqual([{ name: 'CSV', extensions: ['csv'] }]);
    expect(calls.find((c) => c.cmd === 'export_project')!.args).toEqual({
      format: 'csv',
      options: { rule: 'majority', reference: null, history: false, license: null, split: null, subset: null, rater_names: false },
      out_path: '/tmp/out/labels.csv',
    });
  });

  it('sends no rule for a format without ensemble labels, and nothing when the dialog is dismissed', async () => {
    let path: string | null = null;
    const calls = backend({ 'plugin:dialog|save': () => path, export_project: () => 1 });
    const { getByTestId, findByTestId } = render(DataSection);
    await fireEvent.click(await findByTestId('format-answers-jsonl'));
    expect((getByTestId('export-rule') as HTMLSelectElement).disabled).toBe(true);
    await fireEvent.click(getByTestId('export'));
    await Promise.resolve();
    expect(calls.some((c) => c.cmd === 'export_project')).toBe(false);
    path = '/tmp/answers.jsonl';
    await fireEvent.click(getByTestId('export'));
    expect((await findByTestId('export-result')).textContent).toBe('Wrote 1 row to /tmp/answers.jsonl.');
    expect(calls.find((c) => c.cmd === 'export_project')!.args).toEqual({
      format: 'answers-jsonl',
      options: { rule: null, reference: null, history: false, license: null, split: null, subset: null, rater_names: false },
      out_path: '/tmp/answers.jsonl',
    });
  });

  it('shows an export error as its sentence', async () => {
    backend({
      'plugin:dialog|save': () => '/read-only/x.jsonl',
      export_project: () => { throw { code: 'write', message: 'Could not write /read-only/x.jsonl: permission denied.' }; },
    });
    const { getByTestId, findByTestId, findByRole } = render(DataSection);
    await findByTestId('format-jsonl');
    await fireEvent.click(getByTestId('export'));
    expect((await findByRole('alert')).textContent).toBe('Could not write /read-only/x.jsonl: permission denied.');
  });

  it('imports with a progress bar and says when an import was stopped', async () => {
    let channel: { onmessage: (p: unknown) => void } | undefined;
    let reject: (e: unknown) => void = () => {};
    const calls = backend({
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
  it('fetches a dataset from the Hub with progress and says what came, or why it stopped', async () => {
    let channel: { onmessage: (p: unknown) => void } | undefined;
    let resolve: (r: unknown) => void = () => {};
    let reject: (e: unknown) => void = () => {};
    const calls = backend({
      fetch_dataset: (args) => {
        channel = args.on_progress as typeof channel;
        return new Promise((yes, no) => ((resolve = yes), (reject = no)));
      },
      cancel_job: () => null,
    });
    const { getByTestId, findByTestId, findByRole, queryByTestId } = render(DataSection);
    await fireEvent.click(getByTestId('hub-open'));
    expect((getByTestId('hub-fetch') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(getByTestId('hub-dataset'), { target: { value: ' princeton-nlp/SWE-bench_Verified ' } });
    await fireEvent.click(getByTestId('hub-fetch'));
    const job = await findByTestId('fetch-job');
    expect(calls.find((c) => c.cmd === 'fetch_dataset')!.args.request).toEqual({
      dataset: 'princeton-nlp/SWE-bench_Verified',
      split: 'test',
      revision: 'main',
    });
    expect((getByTestId('import') as HTMLButtonElement).disabled).toBe(true);
    channel!.onmessage({ phase: 'download', stage: 'downloading', file: 'data/test-00000-of-00001.parquet', files_done: 0, files_total: 1, bytes_done: 1_500_000, bytes_total: 2_100_000, waiting: null });
    await Promise.resolve();
    expect(job.textContent).toContain('1.5 MB of 2.1 MB · file 1 of 1');
    channel!.onmessage({ phase: 'download', stage: 'waiting', file: 'data/test-00000-of-00001.parquet', files_done: 0, files_total: 1, bytes_done: 0, bytes_total: 0, waiting: '429 Too Many Requests; trying again in 3 s' });
    await Promise.resolve();
    expect(job.textContent).toContain('429 Too Many Requests; trying again in 3 s');
    resolve({
      fetched: { dataset: 'princeton-nlp/SWE-bench_Verified', split: 'test', revision: 'main', commit: 'c104f840cc67f8b6eec6f759ebc8b2693d585d4a', files: [{ path: 'data/test-00000-of-00001.parquet', local: '/c/x', sha256: 'ab', bytes: 2_100_000, cached: true }], cache: '/c' },
      from_cache: true,
      import: { added: 500, updated: 0, unchanged: 0, paths: [] },
    });
    expect((await findByTestId('fetch-result')).textContent).toBe(
      'Fetched princeton-nlp/SWE-bench_Verified (test, main at c104f84): 1 file, 2.1 MB, served from the cache, nothing downloaded. Imported 500 new tasks, 0 changed (new revisions), 0 unchanged.',
    );
    expect(queryByTestId('fetch-job')).toBeNull();

    await fireEvent.click(getByTestId('hub-fetch'));
    await findByTestId('cancel-fetch');
    await fireEvent.click(getByTestId('cancel-fetch'));
    expect(calls.some((c) => c.cmd === 'cancel_job')).toBe(true);
    reject({ code: 'cancelled', message: 'the fetch was cancelled' });
    expect((await findByRole('alert')).textContent).toBe('Fetch stopped; nothing was imported. A partly downloaded file resumes on the next fetch.');
  });
});
