import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import EstimatePanel from './EstimatePanel.svelte';
import SamplePanel from './SamplePanel.svelte';
import ScoresFromSample from './ScoresFromSample.svelte';
import { mockBackend } from './mockBackend';
import { domainTicks, estimateInterval, estimateValue, halfWidth, intervalDomain, moreText } from './ppi';
import type { Estimate, SampleStatus, ScoresReport, SystemScore } from '../../api';

const draw = { method: 'uniform', size: 100, seed: 7, per_case: 3, predictor: null, label: null, floor: null, drawn_at: '2026-11-28T10:00:00Z' };

const estimate: Estimate = {
  label: 'underdetermined', predictor: 'models', n_labeled: 96, n_unlabeled: 635, lambda: 0.62,
  estimate: 0.152, ci: [0.118, 0.186], classical_estimate: 0.167, classical_ci: [0.092, 0.242],
  effective_n: 467.3, sampling: 'uniform', alpha: 0.05, finite: false, share: true, se: 0.0173, classical_se: 0.038,
  population: 731, sampled: 100, incomplete: 4, undecided: 0, outside: 0, predictor_missing: 0,
  draws: [draw], target: { halfwidth: 0.03, more_tasks: 38, more_tasks_classical: 450 },
  assumes: ['The labelled tasks are a simple random sample of the 731 tasks.'], warnings: [],
};

describe('EstimatePanel', () => {
  afterEach(() => clearMocks());

  it('shows both intervals side by side in a table and its chart, the sample, and the tasks to reach the target', async () => {
    const calls = mockBackend({ project_estimate: () => estimate });
    const { getByTestId, findByTestId } = render(EstimatePanel, { testid: 'e' });
    await fireEvent.click(getByTestId('e-run'));
    const table = await findByTestId('e-table');
    const rows = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent!.trim()));
    expect(rows).toEqual([
      ['Prediction-powered (PPI++, λ 0.62)', '15.2%', '[11.8, 18.6]', '±3.4 points', '467'],
      ['Humans alone', '16.7%', '[9.2, 24.2]', '±7.5 points', '96'],
    ]);
    expect(getByTestId('e-chart').getAttribute('aria-label')).toContain('Humans alone 16.7% [9.2, 24.2]');
    expect(getByTestId('e-sample').textContent).toContain('100 of 731 tasks drawn (100 uniformly, seed 7, 3 raters each), 4 not labelled yet');
    expect(getByTestId('e-target-text').textContent).toContain('To reach ±3.0 points: rate 38 more tasks (humans alone: rate 450 more tasks)');
    expect(calls[0].args).toEqual({ request: { label: 'underdetermined', predictor: 'models', alpha: 0.05, lambda: null, target_halfwidth: 0.03, finite: false } });
  });

  it('says why when there is no random sample to stand on', async () => {
    mockBackend({ project_estimate: () => { throw { code: 'not_random_sample', message: 'the humans’ tasks are not a recorded random sample: draw one with `verity assign --sample N`' }; } });
    const { getByTestId, findByTestId } = render(EstimatePanel, { testid: 'e' });
    await fireEvent.click(getByTestId('e-run'));
    expect((await findByTestId('e-error')).textContent).toContain('not a recorded random sample');
  });
});

describe('SamplePanel', () => {
  afterEach(() => clearMocks());

  it('lists the draws and draws more by uncertainty with the form’s settings', async () => {
    let status: SampleStatus = { draws: [], sampled: 0, complete: 0, undrawn: 731, mixed: false };
    const calls = mockBackend({
      sample_status: () => status,
      draw_sample: () => {
        status = { draws: [draw], sampled: 100, complete: 0, undrawn: 631, mixed: false };
        return { draw, number: 1, offered: 731, drawn: [], probability_range: [0.1, 0.3], sampled: 100, assign: { added: 300, calibration: [], calibration_assignments: 0, cases: 100, without_materials: 0, why_none: null, load: {} } };
      },
    });
    const { getByTestId, findByTestId } = render(SamplePanel, { testid: 's' });
    expect((await findByTestId('s-status')).textContent).toContain('No sample drawn yet: 731 tasks to draw from.');
    await fireEvent.change(getByTestId('s-by'), { target: { value: 'uncertainty' } });
    await fireEvent.click(getByTestId('s-draw'));
    await waitFor(() => expect(getByTestId('s-status').textContent).toContain('100 tasks drawn in 1 draw'));
    expect(getByTestId('s-notice').textContent).toContain('300 assignments made');
    expect(calls.find((c) => c.cmd === 'draw_sample')!.args).toEqual({
      request: { size: 100, seed: 0, per_case: 3, method: { by: 'uncertainty', predictor: 'models', label: 'underdetermined', floor: 0.5 } },
    });
  });
});

describe('ScoresFromSample', () => {
  afterEach(() => clearMocks());

  it('tabulates each system’s prediction-powered rate beside the labelled tasks alone', async () => {
    const system = (name: string, ppi: number, lab: number): SystemScore => ({
      system: name, n: 731, submitted: 700, resolved: 150, rate: 0.2, rate_ci: [0.17, 0.23], determinate_n: 0, determinate_resolved: 0, determinate_rate: null, determinate_rate_ci: null,
      underdetermined_rate: null, underdetermined_n: 0, underdetermined_resolved: 0, underdetermined_rate_ci: null, pending_n: 0, pending_resolved: 0, pending_rate: null, rank_raw: 1, rank_determinate: null,
      determinate_rate_ppi: ppi, determinate_rate_ppi_ci: [ppi - 0.03, ppi + 0.03], determinate_rate_labeled: lab, determinate_rate_labeled_ci: [lab - 0.08, lab + 0.08],
    });
    const report = {
      coverage: { tasks: 731, determinate: 0, underdetermined: 0, pending: 0, unlabelled: 731, sources: [], rule: null, unread: [] },
      systems: [system('beta', 0.2, 0.25), system('alpha', 0.3, 0.28)], kendall_tau: null,
      pairs: [{ a: 'alpha', b: 'beta', denominator: 'determinate' as const, n: 0, a_only: 0, b_only: 0, p_value: null, difference: null, difference_ci: null, difference_ppi: 0.1, difference_ppi_ci: [0.05, 0.15], difference_labeled: 0.03, difference_labeled_ci: [-0.05, 0.11] }],
      bootstrap: 0, seed: 0,
      ppi: { predictor: 'models', n_labeled: 96, n_unlabeled: 635, sampled: 100, sampling: 'uniform', determinate_share: 0.8, determinate_share_ci: [0.77, 0.83], predictor_missing: 0, assumes: ['x'] },
    } as ScoresReport;
    const calls = mockBackend({ project_scores: () => report });
    const { getByTestId, findByTestId } = render(ScoresFromSample, { testid: 'p' });
    await fireEvent.click(getByTestId('p-run'));
    const table = await findByTestId('p-table');
    const rows = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent!.trim()));
    expect(rows).toEqual([
      ['alpha', '30.0%', '[27.0, 33.0]', '28.0%', '[20.0, 36.0]'],
      ['beta', '20.0%', '[17.0, 23.0]', '25.0%', '[17.0, 33.0]'],
    ]);
    expect(getByTestId('p-pairs').textContent).toContain('+10.0 pts');
    expect(getByTestId('p-sample').textContent).toContain('96 labelled tasks of a uniform sample (100 drawn)');
    expect(calls[0].args).toEqual({ options: { bootstrap: 0, seed: 0, predictor: 'models' } });
  });
});

describe('ppi formats', () => {
  it('reads a share in percent and a mean as it is', () => {
    expect(estimateValue({ share: true }, 0.1234)).toBe('12.3%');
    expect(estimateValue({ share: false }, 3.14159)).toBe('3.142');
    expect(estimateInterval({ share: true }, [0.1, 0.2])).toBe('[10.0, 20.0]');
    expect(halfWidth({ share: true }, [0.1, 0.2])).toBe('±5.0 points');
    expect(moreText(null)).toBe('no number short of every task reaches it');
    expect(moreText(1)).toBe('rate 1 more task');
  });

  it('pads the axis around the intervals and keeps a share within 0 and 1', () => {
    expect(intervalDomain(true, [[0.0, 0.2], [0.05, 0.1]])).toEqual([0, 0.22]);
    const ticks = domainTicks([0, 0.22]);
    expect(ticks[0]).toBe(0);
    expect(ticks.every((t, i) => i === 0 || t > ticks[i - 1])).toBe(true);
  });
});
