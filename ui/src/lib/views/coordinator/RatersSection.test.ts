import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import RatersSection from './RatersSection.svelte';
import { mockBackend } from './mockBackend';
import { questionnaire } from '../../testing/fixtures';
import type { QualityReport, RaterQuality } from '../../api';

function rater(name: string, over: Partial<RaterQuality> = {}): RaterQuality {
  return {
    rater: name,
    tasks: 12,
    calibration_tasks: 6,
    accuracy: { underspecified: 0.83 },
    weighted_kappa: { underspecified: 0.7 },
    bias: { underspecified: { mean: 0.17, ci95: [0, 0.5] } },
    median_active_seconds: 720,
    fast_submissions: [],
    questions: {
      underspecified: {
        categories: ['0', '1', '2', '3'],
        confusion: [[2, 0, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]],
        drift: [{ tasks: 6, accuracy: 0.83, weighted_kappa: 0.7, bias: 0.17 }],
        alpha_without: 0.61,
        panel_alpha: 0.64,
        shared_tasks: 12,
        kappa_vs_consensus: 0.66,
      },
    },
    reasons: {},
    ...over,
  };
}

const report: QualityReport = {
  reference: 'demo-reference',
  calibration_marked: true,
  questions: ['underspecified'],
  panel_median_active_seconds: 700,
  raters: [
    rater('rater 2'),
    rater('rater 10', {
      accuracy: { underspecified: null },
      weighted_kappa: { underspecified: null },
      bias: { underspecified: { mean: null, ci95: null } },
      median_active_seconds: 150,
      fast_submissions: ['acme__calc-7'],
      reasons: { 'accuracy.underspecified': 'the rater and the reference share no task' },
    }),
  ],
};

describe('RatersSection', () => {
  afterEach(() => clearMocks());

  it('tabulates each rater in the order given, with reasons, flags and a detail on demand', async () => {
    const calls = mockBackend({ rater_quality: () => report, calibration: () => ({ rate: null, tasks: [], with_reference: 6, without_materials: 0 }) });
    const { findByTestId, getByTestId, queryByTestId } = render(RatersSection, { active: true, questionnaire });
    const table = await findByTestId('quality-table');
    const rows = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent!.replace(/\s+/g, ' ').trim()));
    expect(rows).toEqual([
      ['rater 2', '12', '6', '0.83', '0.70', '+0.17 [0.00, +0.50]', '0.66', '0.610', '12.0 min', 'none'],
      ['rater 10', '12', '6', '—', '—', '—', '0.66', '0.610', '2.5 min', '1 flagged acme__calc-7'],
    ]);
    expect(table.querySelectorAll('tbody tr')[1].children[3].getAttribute('title')).toBe('the rater and the reference share no task');
    expect(getByTestId('quality-basis').textContent).toContain('Against the reference set demo-reference, on the calibration tasks.');
    expect(calls[0]).toEqual({ cmd: 'rater_quality', args: { req: { question: null, reference: null, bootstrap: 1000, seed: 0 } } });

    expect(queryByTestId('quality-detail')).toBeNull();
    await fireEvent.click(table.querySelector('tbody tr button')!);
    const detail = await findByTestId('quality-detail');
    expect(detail.textContent).toContain('rater 2 on 1.1');
    expect(getByTestId('quality-drift').querySelectorAll('tbody tr').length).toBe(1);
  });

  it('says so when no rater has submitted yet', async () => {
    mockBackend({ rater_quality: () => ({ ...report, raters: [] }), calibration: () => ({ rate: null, tasks: [], with_reference: 0, without_materials: 0 }) });
    const { findByText } = render(RatersSection, { active: true, questionnaire });
    expect(await findByText('No rater has submitted an answer yet.')).toBeTruthy();
  });

  it('marks the tasks with reference labels as calibration tasks and sets the rate', async () => {
    let view = { rate: null as number | null, tasks: [] as string[], with_reference: 6, without_materials: 0 };
    const calls = mockBackend({
      rater_quality: () => report,
      calibration: () => view,
      mark_all_calibration: () => (view = { ...view, tasks: ['a', 'b', 'c', 'd', 'e', 'f'] }),
      set_calibration_rate: (args) => (view = { ...view, rate: args.rate as number }),
    });
    const { findByTestId, getByTestId } = render(RatersSection, { active: true, questionnaire });
    expect((await findByTestId('calibration')).textContent).toContain('none are mixed into queues yet');
    await fireEvent.click(getByTestId('calibrate-all'));
    expect((await findByTestId('calibration-note')).textContent).toBe('Every task with reference labels is a calibration task.');
    expect(getByTestId('calibration-count').textContent).toBe('6');
    await fireEvent.input(getByTestId('calibration-rate'), { target: { value: '20' } });
    await fireEvent.click(getByTestId('set-calibration-rate'));
    await findByTestId('calibration-note');
    expect(calls.find((c) => c.cmd === 'set_calibration_rate')!.args).toEqual({ rate: 0.2 });
    expect(getByTestId('calibration').textContent).toContain('at 20%');
  });
});
