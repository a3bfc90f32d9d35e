import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks } from '@tauri-apps/api/mocks';
import ModelsSection from './ModelsSection.svelte';
import DisagreementsSection from './DisagreementsSection.svelte';
import { mockBackend, type Handlers } from './mockBackend';
import { setModelsIncluded } from './raterKinds.svelte';
import type { AgreementFigure, DisagreementPage, ModelComparison, ModelRun, ModelSummary, RateProgress } from '../../api/types';
import { disagreements, questionnaire } from '../../testing/fixtures';

function model(name: string, over: Partial<ModelSummary> = {}): ModelSummary {
  return {
    name, active: true, dialect: null, requests: 0, answers: 0, failures: 0, cost_usd: null, added_at: '2026-11-26T10:00:00Z',
    endpoint: 'http://127.0.0.1:9000/v1', model: 'small-1', api_key_env: 'TEST_KEY', api_key_var: 'TEST_KEY', temperature: 0, seed: 7, max_output_tokens: 400,
    price_in: null, price_out: null, prompt_id: 'verity-rater', prompt_version: '1', ...over,
  };
}

const none: AgreementFigure = { estimate: null, ci: null, undefined: 'too few tasks' };
const progressPage = { list_raters: () => [], progress_page: () => ({ total: 2, offset: 0, items: [{ instance_id: 'a-1' }, { instance_id: 'a-2' }] }) };

function backend(handlers: Handlers) {
  return mockBackend({ ...progressPage, ...handlers });
}

describe('ModelsSection', () => {
  // The switch is the coordinator's for the open project: the app turns it off when one opens.
  afterEach(() => {
    clearMocks();
    setModelsIncluded(false);
  });

  it('lists model raters with their settings, the variable of their key, answers, failures and cost; an unknown price or cost says unknown, never 0', async () => {
    backend({
      list_models: () => [
        model('mini'),
        model('priced', { price_in: 0.15, price_out: 0.6, cost_usd: 0.01234, answers: 10, failures: 2, api_key_env: null, api_key_var: 'OPENAI_API_KEY' }),
      ],
    });
    const { findAllByTestId } = render(ModelsSection, { active: true });
    const rows = await findAllByTestId('model-row');
    const cells = rows.map((r) => [...r.children].slice(0, 11).map((c) => c.textContent!.trim()));
    expect(cells[0]).toEqual(['mini', 'small-1', 'http://127.0.0.1:9000/v1', 'TEST_KEY', '0', '7', 'unknown', 'unknown', '0', '0', 'unknown']);
    expect(cells[1]).toEqual(['priced', 'small-1', 'http://127.0.0.1:9000/v1', 'OPENAI_API_KEY (the default)', '0', '7', '$0.15', '$0.6', '10', '2', '$0.0123']);
  });

  it('adds a model naming the environment variable of its key, empty fields sent as unknown', async () => {
    let models: ModelSummary[] = [];
    const calls = backend({
      list_models: () => models,
      add_model: (args) => {
        const req = args.req as { name: string };
        models = [model(req.name)];
        return models[0];
      },
    });
    const { getByTestId, findByTestId, findByRole } = render(ModelsSection, { active: true });
    await findByTestId('models-empty');
    const type = (id: string, value: string) => fireEvent.input(getByTestId(id), { target: { value } });
    await type('model-name', 'mini');
    await type('model-endpoint', 'http://127.0.0.1:9000/v1');
    await type('model-model', 'small-1');
    await type('model-key-env', 'TEST_KEY');
    await type('model-seed', 'seven');
    await fireEvent.submit(getByTestId('add-model-form'));
    expect((await findByRole('alert')).textContent).toBe('Seed must be a whole number; “seven” is not.');
    expect(calls.some((c) => c.cmd === 'add_model')).toBe(false);
    await type('model-seed', '7');
    await type('model-temperature', '0.2');
    await fireEvent.submit(getByTestId('add-model-form'));
    expect((await findByTestId('model-added')).textContent).toBe('Added model rater mini (small-1 at http://127.0.0.1:9000/v1).');
    expect(calls.find((c) => c.cmd === 'add_model')!.args).toEqual({
      req: { name: 'mini', endpoint: 'http://127.0.0.1:9000/v1', model: 'small-1', api_key_env: 'TEST_KEY', temperature: 0.2, seed: 7, max_output_tokens: null, price_in: null, price_out: null },
    });
    await findByTestId('model-row');
    expect((getByTestId('model-name') as HTMLInputElement).value).toBe('');
  });

  it('shows a refusal to remove a model that answered', async () => {
    backend({
      list_models: () => [model('mini', { answers: 3 })],
      remove_model: () => {
        throw { code: 'has_answers', message: 'model rater "mini" has saved 3 answer events, and answers are never deleted.' };
      },
    });
    const { findByTestId, findByRole } = render(ModelsSection, { active: true });
    await fireEvent.click(await findByTestId('remove-model'));
    expect((await findByRole('alert')).textContent).toContain('answers are never deleted');
  });

  it('runs a model over chosen tasks with live tasks, tokens and dollars, and stops it with Stop', async () => {
    let channel: { onmessage: (p: RateProgress) => void } | undefined;
    let finish: (r: ModelRun) => void = () => {};
    const calls = backend({
      list_models: () => [model('mini', { price_in: 1, price_out: 2 })],
      rate_model: (args) => {
        channel = args.on_progress as typeof channel;
        return new Promise((resolve) => (finish = resolve));
      },
      cancel_job: () => null,
    });
    const { getByTestId, findByTestId, findAllByTestId, container } = render(ModelsSection, { active: true });
    await findByTestId('model-row');
    await fireEvent.click(getByTestId('run-chosen'));
    await fireEvent.click(getByTestId('run-start'));
    expect((await findByTestId('run-start')).closest('section')!.querySelector('[role="alert"]')!.textContent).toBe('Choose at least one task, or run over all tasks.');
    await fireEvent.click((await findAllByTestId('run-task'))[1]);
    await fireEvent.input(getByTestId('run-concurrency'), { target: { value: '2' } });
    await fireEvent.input(getByTestId('run-budget'), { target: { value: '0.5' } });
    await fireEvent.click(getByTestId('run-start'));
    await findByTestId('run-progress');
    expect(calls.find((c) => c.cmd === 'rate_model')!.args.req).toEqual({ name: 'mini', cases: ['a-2'], concurrency: 2, budget_usd: 0.5 });
    channel!.onmessage({ tasks: 1, done: 0, rated: 0, failed: 0, skipped: 0, input_tokens: 1200, output_tokens: 40, cost_usd: 0.00128 });
    await waitFor(() => expect(getByTestId('run-progress-text').textContent).toBe('0 of 1 tasks · 0 rated · 0 failed · 0 skipped · 1200 tokens in, 40 out · $0.0013'));
    // The first Stop waits for the requests in flight; the second abandons them.
    await fireEvent.click(getByTestId('run-stop'));
    expect(calls.filter((c) => c.cmd === 'cancel_job')).toHaveLength(1);
    expect(getByTestId('run-stop').textContent).toBe('Stop now');
    expect(getByTestId('run-stopping').textContent).toContain('Waiting for the requests in flight');
    await fireEvent.click(getByTestId('run-stop'));
    expect(calls.filter((c) => c.cmd === 'cancel_job')).toHaveLength(2);
    expect(getByTestId('run-stop').textContent).toBe('Stopping…');
    expect((getByTestId('run-stop') as HTMLButtonElement).disabled).toBe(true);
    finish({ rated: 0, failed: 0, skipped: 0, cost_usd: 0.00128, input_tokens: 1200, output_tokens: 40, stopped: 'stopped: 1 task left unrated (run again to go on; nothing paid for is asked again)' });
    expect((await findByTestId('run-result')).textContent).toBe('Rated 0, failed 0, skipped 0 (already answered); 1200 tokens in, 40 out; cost $0.0013.');
    expect(getByTestId('run-stopped').textContent).toBe('Stopped: 1 task left unrated (run again to go on; nothing paid for is asked again).');
    expect(container.querySelector('progress')).toBeNull();
  });

  it('runs over every task by default and says the cost is unknown without prices', async () => {
    const calls = backend({
      list_models: () => [model('mini')],
      rate_model: () => ({ rated: 2, failed: 0, skipped: 0, cost_usd: null, input_tokens: 10, output_tokens: 4, stopped: null }),
    });
    const { getByTestId, findByTestId, queryByTestId } = render(ModelsSection, { active: true });
    await findByTestId('model-row');
    await fireEvent.click(getByTestId('run-start'));
    expect((await findByTestId('run-result')).textContent).toContain('cost unknown');
    expect(queryByTestId('run-stopped')).toBeNull();
    expect(calls.find((c) => c.cmd === 'rate_model')!.args.req).toEqual({ name: 'mini', cases: null, concurrency: 4, budget_usd: null });
  });

  it('includes models in the panel’s figures only when asked', async () => {
    const calls = backend({ list_models: () => [], include_models: (args) => args.include });
    const { getByTestId, findByTestId } = render(ModelsSection, { active: true });
    await findByTestId('models-empty');
    const box = getByTestId('include-models') as HTMLInputElement;
    expect(box.checked).toBe(false);
    await fireEvent.click(box);
    await waitFor(() => expect(calls.find((c) => c.cmd === 'include_models')?.args).toEqual({ include: true }));
  });

  it('tabulates the comparison and shows why the test was refused', async () => {
    const refused: ModelComparison = {
      model: 'mini', question: 'q1', epsilon: 0.2, winning_rate: null, passed: null, n_cases: 12,
      refused: 'the test wants at least 30 tasks per human; the most any human rated is 12',
      method: 'leave-one-human-out, as the paper’s reference code does.', humans: [],
      kappa_vs_consensus: { estimate: 0.5, ci: [0.2, 0.8], undefined: null }, alpha_humans: none, alpha_with_model: none,
    };
    const passed: ModelComparison = { ...refused, question: 'q2', winning_rate: 0.667, passed: true, n_cases: 40, refused: null };
    const calls = backend({ list_models: () => [model('mini')], compare_models: () => [refused, passed] });
    const { getByTestId, findByTestId } = render(ModelsSection, { active: true });
    await findByTestId('model-row');
    await fireEvent.click(getByTestId('compare-models'));
    const table = await findByTestId('compare-table');
    const rows = [...table.querySelectorAll('[data-testid="compare-row"]')].map((r) => [...r.children].map((c) => c.textContent!.trim()));
    expect(rows).toEqual([
      ['mini', 'q1', '—', 'refused', '12', '0.500 [0.200, 0.800]', 'undefined', 'undefined'],
      ['mini', 'q2', '0.667', 'passed', '40', '0.500 [0.200, 0.800]', 'undefined', 'undefined'],
    ]);
    expect(table.querySelector('caption')!.textContent).toContain('at ε = 0.2');
    expect(getByTestId('compare-method').textContent).toBe('Leave-one-human-out, as the paper’s reference code does.');
    expect(getByTestId('compare-refused').textContent).toBe('Not tested: the test wants at least 30 tasks per human; the most any human rated is 12');
    expect(calls.find((c) => c.cmd === 'compare_models')!.args).toEqual({ question: null, epsilon: null });
  });
});

describe('model answers are marked', () => {
  afterEach(() => clearMocks());

  it('in the disagreements, with the word “model”, not colour alone', async () => {
    const page: DisagreementPage = {
      total: 1, offset: 0, all: 1, open: 1, questions: [],
      items: [{ ...disagreements[0], answers: [{ rater: 'ana', value: 0 }, { rater: 'mini', value: 3 }] }],
    };
    backend({
      list_raters: () => [
        { name: 'ana', active: true, assigned: 1, submitted: 1, kind: 'human' },
        { name: 'mini', active: true, assigned: 1, submitted: 1, kind: 'model' },
      ],
      disagreement_page: () => page,
    });
    const { findAllByTestId } = render(DisagreementsSection, { active: true, questionnaire });
    const chips = await findAllByTestId('answer-chip');
    await waitFor(() => expect(chips[1].textContent).toContain('model'));
    expect(chips[0].querySelector('[data-testid="model-badge"]')).toBeNull();
    expect(chips[1].querySelector('[data-testid="model-badge"]')!.textContent).toBe('model');
  });
});
