import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor, within } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import { emit } from '@tauri-apps/api/event';
import DisagreementsSection from './DisagreementsSection.svelte';
import { mockBackend } from './mockBackend';
import { disagreements, questionnaire } from '../../testing/fixtures';
import type { AdjudicationRequest, AdjudicationView, Disagreement, DisagreementPage, DisagreementQuery } from '../../api/types';
import { deferred, settle, watchFor } from '../../testing/pending';

/** The Rust side's `disagreement_page` over `list` (worst first already). */
function pageOf(list: Disagreement[], args: Record<string, unknown>): DisagreementPage {
  const q = args.query as DisagreementQuery;
  const matching = list.filter((d) => (q.question === null || d.question === q.question) && (!q.open_only || d.adjudication === null));
  const questions = [...new Map(list.map((d) => [d.question, { question: d.question, number: d.number }])).values()];
  return {
    total: matching.length, all: list.length, open: list.filter((d) => d.adjudication === null).length, questions,
    offset: q.offset, items: matching.slice(q.offset, q.offset + q.limit),
  };
}

function backend() {
  let list: Disagreement[] = structuredClone(disagreements);
  const calls = mockBackend({
    disagreement_page: (args) => pageOf(list, args),
    adjudicate: (args) => {
      const req = args.req as AdjudicationRequest;
      const view: AdjudicationView = { ...req, at: '2026-01-03T11:00:00Z' };
      list = list.map((d) => (d.instance_id === req.instance_id && d.question === req.question ? { ...d, adjudication: view } : d));
      return view;
    },
  });
  return calls;
}

describe('DisagreementsSection', () => {
  afterEach(() => clearMocks());

  it('lists disagreements worst first with each rater’s answer and its option label', async () => {
    backend();
    const { findAllByTestId, getByTestId } = render(DisagreementsSection, { active: true, questionnaire });
    const items = await findAllByTestId('disagreement');
    expect(items).toHaveLength(3);
    expect(items[0].textContent).toContain('astropy__astropy-12907');
    expect(items[0].textContent).toContain('1.1');
    expect(within(items[0]).getAllByTestId('answer-chip').map((c) => c.textContent)).toEqual(['Amara 0 · Well-specified', 'Ben 3 · Almost impossible']);
    expect(within(items[1]).getAllByTestId('answer-chip').map((c) => c.textContent)).toEqual(['Amara <15 min fix', 'Chen 15 min - 1 hour']);
    // A chip cut short on a narrow row still names its whole answer.
    expect(within(items[0]).getAllByTestId('answer-chip').map((c) => c.title)).toEqual(['Amara: 0 · Well-specified', 'Ben: 3 · Almost impossible']);
    expect(items[0].textContent).toContain('spread 3');
    expect(items[0].textContent).toContain('not adjudicated');
    expect(items[2].textContent).toContain('adjudicated: 0 · No');
    expect(getByTestId('disagreement-count').textContent).toBe('3 disagreements, 2 not adjudicated');
  });

  it('filters by question and to the ones not yet adjudicated', async () => {
    backend();
    const { findAllByTestId, getByTestId, getAllByTestId } = render(DisagreementsSection, { active: true, questionnaire });
    await findAllByTestId('disagreement');
    await fireEvent.change(getByTestId('filter-question'), { target: { value: 'other_major_issues' } });
    await waitFor(() => expect(getAllByTestId('disagreement').map((d) => d.textContent)).toHaveLength(1));
    await fireEvent.click(getByTestId('filter-open'));
    await waitFor(() => expect(getByTestId('disagreement-count').textContent).toContain('0 shown'));
    await fireEvent.change(getByTestId('filter-question'), { target: { value: 'all' } });
    await waitFor(() => expect(getAllByTestId('disagreement').map((d) => within(d).getByText(/__/).textContent)).toEqual(['astropy__astropy-12907', 'django__django-11099']));
  });

  it('refuses an empty rationale before calling, then sends exactly the decision and shows it', async () => {
    const calls = backend();
    const { findAllByTestId, getByTestId, findByTestId, findByRole } = render(DisagreementsSection, { active: true, questionnaire });
    await fireEvent.click((await findAllByTestId('disagreement'))[0]);
    const panel = await findByTestId('adjudication');
    expect(panel.textContent).toContain('Is the issue well-specified?');
    const options = within(panel).getAllByTestId('adjudication-option');
    expect(options).toHaveLength(4);
    await fireEvent.click(options[2]);
    await fireEvent.input(getByTestId('rationale'), { target: { value: '   ' } });
    await fireEvent.click(getByTestId('adjudicate'));
    expect((await findByRole('alert')).textContent).toMatch(/^Write the rationale/);
    expect(calls.some((c) => c.cmd === 'adjudicate')).toBe(false);

    await fireEvent.input(getByTestId('rationale'), { target: { value: ' The issue names the function but not the expected output. ' } });
    await fireEvent.click(getByTestId('adjudicate'));
    expect((await findByTestId('recorded')).textContent).toBe(
      'Recorded 2 · Vague by coordinator at 2026-01-03 11:00:00 UTC: “The issue names the function but not the expected output.”',
    );
    expect(calls.filter((c) => c.cmd === 'adjudicate')).toEqual([
      {
        cmd: 'adjudicate',
        args: { req: { instance_id: 'astropy__astropy-12907', question: 'underspecified', value: 2, rationale: 'The issue names the function but not the expected output.', by: 'coordinator' } },
      },
    ]);
    await waitFor(() => expect(calls.filter((c) => c.cmd === 'disagreement_page')).toHaveLength(2));
    await waitFor(() => expect(getByTestId('disagreement-count').textContent).toBe('3 disagreements, 1 not adjudicated'));
  });

  it('requires a final answer and the adjudicator’s name, and shows a refusal as its sentence', async () => {
    mockBackend({
      disagreement_page: (args) => pageOf(disagreements, args),
      adjudicate: () => { throw { code: 'not_an_option', message: '"4" is not an option of question "difficulty".' }; },
    });
    const { findAllByTestId, getByTestId, findByTestId } = render(DisagreementsSection, { active: true, questionnaire });
    await fireEvent.click((await findAllByTestId('disagreement'))[1]);
    const panel = await findByTestId('adjudication');
    await fireEvent.input(getByTestId('rationale'), { target: { value: 'Both are defensible; the fix is one line.' } });
    await fireEvent.click(getByTestId('adjudicate'));
    expect(within(panel).getByRole('alert').textContent).toBe('Choose the final answer.');
    await fireEvent.click(within(panel).getAllByTestId('adjudication-option')[0]);
    await fireEvent.input(getByTestId('adjudicator'), { target: { value: '' } });
    await fireEvent.click(getByTestId('adjudicate'));
    expect(within(panel).getByRole('alert').textContent).toBe('Name who decides.');
    await fireEvent.input(getByTestId('adjudicator'), { target: { value: 'Dana' } });
    await fireEvent.click(getByTestId('adjudicate'));
    await waitFor(() => expect(within(panel).getByRole('alert').textContent).toBe('"4" is not an option of question "difficulty".'));
  });

  it('shows an earlier decision and starts from its answer', async () => {
    backend();
    const { findAllByTestId, findByTestId } = render(DisagreementsSection, { active: true, questionnaire });
    await fireEvent.click((await findAllByTestId('disagreement'))[2]);
    const panel = await findByTestId('adjudication');
    expect(within(panel).getByTestId('previous').textContent).toMatch(/^Adjudicated 0 · No by coordinator at 2026-01-02 09:30:00 UTC: “The test is sound.”/);
    const checked = within(panel).getAllByTestId('adjudication-option').map((o) => (o as HTMLInputElement).checked);
    expect(checked).toEqual([true, false]);
  });

  it('refreshes while shown when other sessions change answers', async () => {
    const calls = backend();
    const { findAllByTestId } = render(DisagreementsSection, { active: true, questionnaire });
    await findAllByTestId('disagreement');
    await waitFor(async () => {
      await emit('answers-changed');
      expect(calls.filter((c) => c.cmd === 'disagreement_page').length).toBeGreaterThan(1);
    });
  });
});

describe('DisagreementsSection while loading', () => {
  afterEach(() => clearMocks());

  it('says it is loading, never that the raters agree, until the first answer', async () => {
    const list = deferred<DisagreementPage>();
    mockBackend({ disagreement_page: () => list.promise });
    const { container, getByTestId, findByText } = render(DisagreementsSection, { active: true, questionnaire });
    const agree = watchFor(container, 'The raters agree on every answered question.');
    await settle();
    expect(getByTestId('disagreements-loading').getAttribute('aria-busy')).toBe('true');
    expect(container.querySelector('[data-testid="disagreement-count"]')).toBeNull();
    expect(agree.seen()).toBe(false);

    list.resolve(pageOf([], { query: { offset: 0, limit: 100, question: null, open_only: false } }));
    await findByText('The raters agree on every answered question.');
    expect(getByTestId('disagreement-count').textContent).toBe('0 disagreements, 0 not adjudicated');
    expect(container.querySelector('[data-testid="disagreements-loading"]')).toBeNull();
    agree.stop();
  });
});
