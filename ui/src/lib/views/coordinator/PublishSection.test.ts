import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import PublishSection from './PublishSection.svelte';
import { mockBackend } from './mockBackend';
import type { PublicationPreview, PublishReport } from '../../api';

const preview: PublicationPreview = {
  dataset: {
    folder: '/data/datasets/acme--panel',
    files: [
      { path: 'README.md', rows: 0, bytes: 8000 },
      { path: 'data/test-00000-of-00001.parquet', rows: 4, bytes: 30000 },
      { path: 'annotations/test-00000-of-00001.parquet', rows: 12, bytes: 9000 },
    ],
    tasks: 4,
    annotations: 12,
    without_fields: 0,
    replaced: false,
    card: '---\nlicense: "mit"\n---\n# demo',
  },
  metadata: 'license: "mit"',
  html: '<h1>demo, as rated by a panel</h1><p>4 software-engineering tasks</p>',
};

const report = (over: Partial<PublishReport>): PublishReport => ({
  repo: 'acme/panel',
  revision: 'main',
  url: 'https://hub/datasets/acme/panel',
  created: true,
  branch_created: false,
  private: true,
  commit: 'c0ffee1234567890c0ffee1234567890c0ffee12',
  commit_url: 'https://hub/datasets/acme/panel/commit/c0ffee1',
  files: [
    { path: 'README.md', bytes: 8000, sha256: 'a', mode: 'regular', action: 'upload' },
    { path: 'data/test-00000-of-00001.parquet', bytes: 30000, sha256: 'b', mode: 'lfs', action: 'upload' },
    { path: 'annotations/test-00000-of-00001.parquet', bytes: 9000, sha256: 'c', mode: 'lfs', action: 'already_uploaded' },
  ],
  uploaded_bytes: 30000,
  dry_run: false,
  note: null,
  ...over,
});

async function prepared(handlers: Parameters<typeof mockBackend>[0]) {
  const calls = mockBackend({ prepare_publication: () => preview, ...handlers });
  const view = render(PublishSection, { rule: 'majority' });
  await fireEvent.input(view.getByTestId('publish-repo'), { target: { value: 'acme/panel' } });
  await fireEvent.input(view.getByTestId('publish-license'), { target: { value: 'mit' } });
  await fireEvent.change(view.getByTestId('publish-subset'), { target: { value: 'all' } });
  await fireEvent.click(view.getByTestId('publish-private'));
  await fireEvent.click(view.getByTestId('publish-prepare'));
  await view.findByTestId('publish-card');
  return { calls, view };
}

describe('PublishSection', () => {
  afterEach(() => clearMocks());

  it('shows the card before anything is uploaded, then publishes the prepared folder', async () => {
    const { calls, view } = await prepared({ publish_dataset: () => report({}) });
    expect(calls.find((c) => c.cmd === 'prepare_publication')!.args).toEqual({
      options: { rule: 'majority', reference: null, history: false, license: 'mit', split: 'test', subset: 'all', rater_names: false },
      repo: 'acme/panel',
    });
    expect(view.getByTestId('publish-card').innerHTML).toContain('<h1>demo, as rated by a panel</h1>');
    expect(view.getByTestId('publish-metadata').textContent).toBe('license: "mit"');
    expect(calls.some((c) => c.cmd === 'publish_dataset')).toBe(false);
    await fireEvent.input(view.getByTestId('publish-message'), { target: { value: 'round one' } });
    await fireEvent.click(view.getByTestId('publish-upload'));
    expect((await view.findByTestId('publish-result')).textContent).toContain(
      'Created the private repository acme/panel. Committed c0ffee1 to acme/panel on main (2 to send, 1 already uploaded, 0 unchanged; 30 kB sent).',
    );
    const request = calls.find((c) => c.cmd === 'publish_dataset')!.args.request;
    expect(request).toEqual({ repo: 'acme/panel', folder: '/data/datasets/acme--panel', private: true, revision: null, message: 'round one', dry_run: false });
  });

  it('runs a dry run, and asks for a new card when the repository changes', async () => {
    const { calls, view } = await prepared({ publish_dataset: () => report({ dry_run: true, commit: null, commit_url: null }) });
    await fireEvent.click(view.getByTestId('publish-dry-run'));
    expect((await view.findByTestId('publish-result')).textContent).toContain('Dry run: 2 to send, 1 already uploaded, 0 unchanged; nothing was uploaded.');
    expect((calls.find((c) => c.cmd === 'publish_dataset')!.args.request as { dry_run: boolean }).dry_run).toBe(true);
    await fireEvent.input(view.getByTestId('publish-repo'), { target: { value: 'acme/other' } });
    expect(view.queryByTestId('publish-card')).toBeNull();
  });

  it('says a refusal in its sentence and a cancel as what resumes', async () => {
    let answer: () => unknown = () => { throw { code: 'hub', message: 'the Hub refused the token from HF_TOKEN: it is invalid or expired' }; };
    const { view } = await prepared({ publish_dataset: () => answer() });
    await fireEvent.click(view.getByTestId('publish-upload'));
    expect((await view.findByRole('alert')).textContent).toBe('the Hub refused the token from HF_TOKEN: it is invalid or expired');
    answer = () => { throw { code: 'cancelled', message: 'stopped' }; };
    await fireEvent.click(view.getByTestId('publish-upload'));
    await view.findByText(/publishing again sends only the files not yet uploaded/);
  });

  it('needs a repository and a licence before it prepares anything', async () => {
    mockBackend({});
    const view = render(PublishSection);
    expect((view.getByTestId('publish-prepare') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(view.getByTestId('publish-repo'), { target: { value: 'acme/panel' } });
    expect((view.getByTestId('publish-prepare') as HTMLButtonElement).disabled).toBe(true);
  });
});
