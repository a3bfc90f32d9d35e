import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import ScoresSection from './ScoresSection.svelte';
import { mockBackend } from './mockBackend';
import { chartDomain, chartTicks, percent, percentInterval } from './scores';
import type { ExportFormatInfo, ScoresReport, SystemScore } from '../../api';

function system(name: string, rate: number, det: number, rankRaw: number, rankDet: number): SystemScore {
  return {
    system: name, n: 100, submitted: 90, resolved: Math.round(rate * 100), rate, rate_ci: [rate - 0.05, rate + 0.05],
    determinate_n: 60, determinate_resolved: Math.round(det * 60), determinate_rate: det, determinate_rate_ci: [det - 0.06, det + 0.06],
    underdetermined_rate: 0.1, underdetermined_n: 30, underdetermined_resolved: 3, underdetermined_rate_ci: [0.03, 0.26],
    pending_n: 10, pending_resolved: 1, pending_rate: 0.1, rank_raw: rankRaw, rank_determinate: rankDet,
    determinate_rate_ppi: null, determinate_rate_ppi_ci: null, determinate_rate_labeled: null, determinate_rate_labeled_ci: null,
  };
}

const report: ScoresReport = {
  coverage: { tasks: 100, determinate: 60, underdetermined: 30, pending: 10, unlabelled: 0, sources: [{ source: 'audit', tasks: 100, determinate: 60, underdetermined: 30, pending: 10 }], rule: 'Determinate: entailed or determined.', unread: [] },
  systems: [system('beta', 0.3, 0.45, 2, 1), system('alpha', 0.4, 0.4, 1, 2)],
  kendall_tau: -1,
  pairs: [{ a: 'alpha', b: 'beta', denominator: 'all', n: 100, a_only: 15, b_only: 5, p_value: 0.0414, difference: 0.1, difference_ci: [0.02, 0.18], difference_ppi: null, difference_ppi_ci: null, difference_labeled: null, difference_labeled_ci: null }],
  bootstrap: 1000,
  seed: 0,
  ppi: null,
};

describe('ScoresSection', () => {
  afterEach(() => clearMocks());

  it('tabulates each system raw beside determinate-only, in the raw order, with a caption and row headers', async () => {
    const calls = mockBackend({ project_scores: () => report });
    const { findByTestId, getByTestId } = render(ScoresSection, { active: true });
    const table = await findByTestId('scores-table');
    expect(table.querySelector('caption')!.textContent).toContain('Kendall’s τ-b between the two orders: -1.000');
    const rows = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].slice(0, 8).map((c) => c.textContent!.trim()));
    expect(rows).toEqual([
      ['alpha', '90 / 100', '40.0%', '[35.0, 45.0]', '1', '40.0%', '[34.0, 46.0]', '2'],
      ['beta', '90 / 100', '30.0%', '[25.0, 35.0]', '2', '45.0%', '[39.0, 51.0]', '1'],
    ]);
    expect(table.querySelectorAll('tbody th[scope="row"]').length).toBe(2);
    expect(getByTestId('scores-coverage').textContent).toContain('60 determinate, 30 underdetermined, 10 waiting for raters, 0 unlabelled');
    expect(getByTestId('scores-chart').getAttribute('aria-label')).toContain('alpha: raw 40.0% [35.0, 45.0], rank 1; determinate-only 40.0% [34.0, 46.0], rank 2');
    expect(getByTestId('scores-pairs').textContent).toContain('alpha − beta');
    expect(calls).toEqual([{ cmd: 'project_scores', args: { options: { bootstrap: 1000, seed: 0, predictor: null } } }]);
  });

  it('says which imported labels the questionnaire does not read, and what to run', async () => {
    const note = "the audit's verdicts on 728 tasks are not read: questionnaire swe-bench-verified 1.0.0 decides which tasks are determinate by the panel's labels and reference label sets alone; to score by them, make a project with `verity init --questionnaire determinacy` and import the tasks, the audit's folders and the results into it";
    mockBackend({ project_scores: () => ({ ...report, coverage: { ...report.coverage, unread: [{ source: 'audit', set: null, tasks: 728, note }] } }) });
    const { findByTestId } = render(ScoresSection, { active: true });
    expect((await findByTestId('scores-unread')).textContent).toBe(`The audit's verdicts on 728 tasks are not read: questionnaire swe-bench-verified 1.0.0 decides which tasks are determinate by the panel's labels and reference label sets alone; to score by them, make a project with \`verity init --questionnaire determinacy\` and import the tasks, the audit's folders and the results into it.`);
  });

  it('downloads the tasks left out to the file the export format proposes', async () => {
    const underdetermined: ExportFormatInfo = { format: 'underdetermined', title: 'Tasks left out of scores (CSV)', description: 'Left out, and why.', file_name: 'underdetermined.csv', file_type: 'CSV', extension: 'csv', uses_rule: false, folder: false };
    const calls = mockBackend({
      project_scores: () => report,
      export_formats: () => [underdetermined],
      'plugin:dialog|save': () => '/tmp/left-out.csv',
      export_project: () => 30,
    });
    const { findByTestId, getByTestId } = render(ScoresSection, { active: true });
    await findByTestId('scores-table');
    await fireEvent.click(getByTestId('scores-download'));
    await vi.waitFor(() => expect(calls.some((c) => c.cmd === 'export_project')).toBe(true));
    expect(calls.find((c) => c.cmd === 'plugin:dialog|save')!.args.options).toEqual({ defaultPath: 'underdetermined.csv', filters: [{ name: 'CSV', extensions: ['csv'] }] });
    expect(calls.find((c) => c.cmd === 'export_project')!.args.format).toBe('underdetermined');
  });

  it('says how to begin when no system has results', async () => {
    mockBackend({ project_scores: () => ({ ...report, systems: [], pairs: [], kendall_tau: null }) });
    const { findByTestId } = render(ScoresSection, { active: true });
    expect((await findByTestId('scores-empty')).textContent).toContain('No results yet');
  });

  it('formats rates and sizes the axis to the widest interval', () => {
    expect(percent(null)).toBe('—');
    expect(percent(0.1234)).toBe('12.3%');
    expect(percentInterval([0.1, 0.2])).toBe('[10.0, 20.0]');
    expect(chartDomain(report.systems)).toEqual([0, 0.6]);
    expect(chartDomain([])).toEqual([0, 0.1]);
    expect(chartTicks([0, 0.3])).toEqual([0, 0.1, 0.2, 0.3]);
    expect(chartTicks([0, 0.9])).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
  });
});
