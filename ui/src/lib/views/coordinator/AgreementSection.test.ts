import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor, within } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import { emit } from '@tauri-apps/api/event';
import AgreementSection from './AgreementSection.svelte';
import { mockBackend } from './mockBackend';
import { agreement, questionnaire } from '../../testing/fixtures';
import { setModelsIncluded } from './raterKinds.svelte';
import type { AgreementView, GroupAgreement } from '../../api';

/** The fixture's agreement with model raters included: humans measured on the first question,
 * one model alone (so not measured), both pooled. */
function withGroups(): AgreementView {
  const first = agreement.questions[0];
  const group = (among: GroupAgreement['among'], raters: string[], alpha: number | null, absent: string | null): GroupAgreement => ({
    among,
    raters,
    cases: 5,
    absent,
    questions: absent
      ? []
      : [{
          question: first.question,
          number: first.number,
          report: { units: 4 },
          coefficients: [
            { key: 'percent_agreement', name: 'percent agreement', value: 0.5, ci95: null, reason: null },
            { key: 'krippendorff_alpha.nominal', name: "Krippendorff's alpha, nominal", value: 0.1, ci95: null, reason: null },
            { key: 'krippendorff_alpha.ordinal', name: "Krippendorff's alpha, ordinal", value: alpha, ci95: [0.125, 0.75], reason: null },
          ],
        }],
  });
  return {
    ...agreement,
    raters: ['Amara', 'Ben', 'Chen', 'gpt-judge'],
    groups: [
      group('humans', ['Amara', 'Ben', 'Chen'], 0.61234, null),
      group('models', ['gpt-judge'], null, 'only one of the model raters (gpt-judge) has submitted answers: agreement among models needs at least two'),
      group('pooled', ['Amara', 'Ben', 'Chen', 'gpt-judge'], 0.5, null),
    ],
  };
}

function groupRow(container: HTMLElement, question: string, among: string): string[] {
  const tr = container.querySelector(`[data-testid="agreement-group-row"][data-question="${question}"][data-among="${among}"]`)!;
  return [...tr.children].map((c) => c.textContent!.trim());
}

function coefficientRow(question: HTMLElement, key: string): string[] {
  const tr = question.querySelector(`[data-testid="coefficients"] tr[data-key="${key}"]`)!;
  return [...tr.children].map((c) => c.textContent!.trim());
}

function reason(question: HTMLElement, key: string): string | undefined {
  return question.querySelector(`[data-testid="coefficients"] tr[data-reason="${key}"]`)?.textContent?.trim();
}

describe('AgreementSection', () => {
  afterEach(() => {
    clearMocks();
    setModelsIncluded(false);
  });

  it('asks for every question with 500 bootstrap resamples and counts tasks and raters', async () => {
    const calls = mockBackend({ project_agreement: () => agreement });
    const { findByTestId } = render(AgreementSection, { active: true, questionnaire });
    expect((await findByTestId('agreement-counts')).textContent).toMatch(/5 tasks with a submission · 3 raters: Amara, Ben, Chen/);
    expect(calls).toEqual([{ cmd: 'project_agreement', args: { req: { question: null, bootstrap: 500, seed: 1 } } }]);
  });

  it('shows each coefficient with 3 decimals and its interval, and an undefined one with its reason', async () => {
    mockBackend({ project_agreement: () => agreement });
    const { findAllByTestId } = render(AgreementSection, { active: true, questionnaire });
    const [first, second] = await findAllByTestId('agreement-question');
    expect(first.textContent).toContain('1.1');
    expect(coefficientRow(first, 'krippendorff_alpha.ordinal')).toEqual(["Krippendorff's alpha, ordinal", '0.612', '[0.313, 0.855]']);
    expect(reason(first, 'krippendorff_alpha.ordinal')).toBeUndefined();
    expect(coefficientRow(first, 'fleiss_kappa')).toEqual(["Fleiss' kappa (3 complete units)", '0.412', '[0.100, 0.700]']);
    expect(coefficientRow(first, 'gwet_ac1')).toEqual(["Gwet's AC1", 'undefined', '—']);
    expect(reason(first, 'gwet_ac1')).toBe('Gwet’s AC1 is undefined: chance agreement is 1.');
    expect(reason(second, 'krippendorff_alpha.ordinal')).toBe('No task was rated by two raters.');
    expect(first.closest('[data-testid="agreement-dashboard"]')!.textContent).not.toContain('NaN');
  });

  it('plots each question’s alpha at its level, and the reason where it is undefined', async () => {
    mockBackend({ project_agreement: () => agreement });
    const { findAllByTestId } = render(AgreementSection, { active: true, questionnaire });
    const rows = await findAllByTestId('forest-row');
    expect(rows).toHaveLength(3);
    expect(rows[0].textContent).toContain('0.612');
    expect(rows[0].textContent).toContain('[0.313, 0.855]');
    expect(rows[1].querySelector('circle')).toBeNull();
    expect(rows[1].textContent).toContain('No task was rated by two raters.');
    expect(rows[2].textContent).toContain('-0.083');
  });

  it('shows the pair heatmap, one confusion matrix per pair, the distribution and the reference', async () => {
    mockBackend({ project_agreement: () => agreement });
    const { findAllByTestId } = render(AgreementSection, { active: true, questionnaire });
    const [first] = await findAllByTestId('agreement-question');
    const q = within(first);
    expect(q.getAllByTestId('heatmap-cell')).toHaveLength(9);
    const matrices = q.getAllByTestId('confusion');
    expect(matrices).toHaveLength(2);
    expect(matrices[1].querySelector('td[data-row="3"][data-col="2"]')!.textContent).toBe('1');
    expect(matrices[0].querySelector('th[scope="col"]')!.getAttribute('title')).toBe('Well-specified');
    expect(q.getByRole('img', { name: 'Answers per category on question 1.1' }).textContent).toContain('5');
    expect(q.getByTestId('reference').textContent).toContain('openai-verified');
    expect(q.getByTestId('reference').textContent).toContain('0.750');
  });

  it('lists free-text questions as not measured', async () => {
    mockBackend({ project_agreement: () => agreement });
    const { findAllByTestId } = render(AgreementSection, { active: true, questionnaire });
    const skipped = await findAllByTestId('skipped-question');
    expect(skipped.map((li) => li.textContent)).toEqual([
      '1.2 Explain your choice. — not measured: free text',
      '3.4 Other notes — not measured: free text',
    ]);
  });

  it('refreshes without intervals when the bootstrap is turned off, and shows errors as sentences', async () => {
    let fail = false;
    const calls = mockBackend({
      project_agreement: () => {
        if (fail) throw { code: 'store', message: 'The project has no answers yet.' };
        return agreement;
      },
    });
    const { findByTestId, getByTestId, findByRole } = render(AgreementSection, { active: true, questionnaire });
    await findByTestId('agreement-counts');
    await fireEvent.click(getByTestId('bootstrap-on'));
    await fireEvent.click(getByTestId('refresh-agreement'));
    await waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1].args).toEqual({ req: { question: null, bootstrap: null, seed: 1 } });
    fail = true;
    await fireEvent.click(getByTestId('refresh-agreement'));
    expect((await findByRole('alert')).textContent).toBe('The project has no answers yet.');
  });

  it('waits to be opened before computing', async () => {
    const calls = mockBackend({ project_agreement: () => agreement });
    render(AgreementSection, { active: false, questionnaire });
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toHaveLength(0);
  });

  it('says it is out of date when other sessions change answers, until recomputed', async () => {
    const calls = mockBackend({ project_agreement: () => agreement });
    const { findByTestId, getByTestId, queryByTestId } = render(AgreementSection, { active: true, questionnaire });
    await findByTestId('agreement-counts');
    await waitFor(async () => {
      await emit('answers-changed');
      expect(queryByTestId('agreement-stale')).not.toBeNull();
    });
    // Marked, not recomputed: the bootstrap can take a while.
    expect(calls.filter((c) => c.cmd === 'project_agreement')).toHaveLength(1);
    await fireEvent.click(getByTestId('refresh-agreement'));
    await waitFor(() => expect(queryByTestId('agreement-stale')).toBeNull());
    expect(calls.filter((c) => c.cmd === 'project_agreement')).toHaveLength(2);
  });

  it('shows agreement among humans, among models and pooled when model raters are included', async () => {
    mockBackend({ project_agreement: () => withGroups() });
    const { findByTestId, getAllByTestId } = render(AgreementSection, { active: true, questionnaire });
    const groups = await findByTestId('agreement-groups');
    expect(getAllByTestId('agreement-group').map((g) => g.dataset.among)).toEqual(['humans', 'models', 'pooled']);
    expect(groups.textContent).toContain('Humans: 3 raters (Amara, Ben, Chen), 5 tasks');
    expect(within(groups).getByTestId('group-absent').textContent).toBe(
      '. Not measured: only one of the model raters (gpt-judge) has submitted answers: agreement among models needs at least two',
    );
    // The question's own level picks the alpha shown; a group without figures says so.
    expect(groupRow(groups, 'underspecified', 'humans').slice(1)).toEqual(['Humans', '4', '0.500', '0.612', '[0.125, 0.750]']);
    expect(groupRow(groups, 'underspecified', 'pooled').slice(1)).toEqual(['Pooled', '4', '0.500', '0.500', '[0.125, 0.750]']);
    expect(groupRow(groups, 'underspecified', 'models').slice(1)).toEqual(['Models', 'not measured']);
    expect(groupRow(groups, 'difficulty', 'humans').slice(1)).toEqual(['Humans', 'not measured']);
  });

  it('says in the table, not only in a tooltip, why a group has no alpha', async () => {
    const view = withGroups();
    const pooled = view.groups![2].questions[0].coefficients[2];
    pooled.value = null;
    pooled.ci95 = null;
    pooled.reason = 'no variation: every answer is the same';
    mockBackend({ project_agreement: () => view });
    const { findByTestId } = render(AgreementSection, { active: true, questionnaire });
    const groups = await findByTestId('agreement-groups');
    expect(within(groups).getByTestId('alpha-why').textContent).toBe('no variation: every answer is the same');
    expect(groupRow(groups, 'underspecified', 'pooled').slice(1)).toEqual(['Pooled', '4', '0.500', 'undefinedno variation: every answer is the same', '—']);
  });

  it('computes once on first opening when the models are already included', async () => {
    setModelsIncluded(true);
    const calls = mockBackend({ project_agreement: () => withGroups() });
    const { findByTestId } = render(AgreementSection, { active: true, questionnaire });
    await findByTestId('agreement-groups');
    expect(calls.filter((c) => c.cmd === 'project_agreement')).toHaveLength(1);
  });

  it('shows no groups over humans alone, and computes again when the models switch changes', async () => {
    setModelsIncluded(false);
    let included = false;
    const calls = mockBackend({ project_agreement: () => (included ? withGroups() : agreement) });
    const { findByTestId, queryByTestId } = render(AgreementSection, { active: true, questionnaire });
    await findByTestId('agreement-counts');
    expect(queryByTestId('agreement-groups')).toBeNull();
    included = true;
    setModelsIncluded(true);
    await findByTestId('agreement-groups');
    expect(calls.filter((c) => c.cmd === 'project_agreement')).toHaveLength(2);
  });
});
