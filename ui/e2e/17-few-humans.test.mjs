import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkAccessibility } from './a11y.mjs';
import { find, shot, startApp, until } from './harness.mjs';

const cli = process.env.VERITY_CLI;
// The command line is target/debug/verity: the repository and the tests' servers are beside it.
const root = path.resolve(path.dirname(cli ?? ''), '..', '..');
const TASKS = 90;
const KEY_VARIABLE = 'VERITY_E2E_FEW_HUMANS_KEY';
const NOTE = 'The issue says what to change and the tests check that and nothing else; a careful reader would write the same fix.';

function verity(project, args, env = {}) {
  return execFileSync(cli, ['--project', project, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
}

function answer(underspecified, confidence) {
  return {
    underspecified, underspecified_notes: NOTE, false_negative: 0, false_negative_notes: NOTE,
    difficulty: '<15 min fix', difficulty_notes: 'One guard.', other_major_issues: 0, annotator_confidence: confidence,
  };
}

/** Whether task `i` is underspecified: a fixed pattern, about one task in three. */
const underspecified = (i) => (i * 7) % 10 < 3;

/** A project of TASKS tasks, three human raters, a model rater (served by the tests' Chat
 * Completions server, answering each task by its id, right on most) that rated every task, and
 * two systems' results. */
async function project() {
  assert.ok(cli, 'scripts/e2e.sh passes VERITY_CLI');
  const dir = mkdtempSync(path.join(tmpdir(), 'verity-few-humans-'));
  const file = path.join(dir, 'panel.verity');
  const base = JSON.parse(readFileSync(path.join(root, 'annotations/tests/fixtures/swebench.jsonl'), 'utf8').split('\n')[0]);
  const ids = Array.from({ length: TASKS }, (_, i) => `acme__calc-${2000 + i}`);
  writeFileSync(path.join(dir, 'tasks.jsonl'), ids.map((id) => JSON.stringify({ ...base, instance_id: id })).join('\n') + '\n');
  const replies = Object.fromEntries(ids.map((id, i) => [id, answer(underspecified(i) !== (i % 11 === 0) ? 2 : 0, 4)]));
  writeFileSync(path.join(dir, 'replies.json'), JSON.stringify(replies));
  verity(file, ['init']);
  verity(file, ['import', path.join(dir, 'tasks.jsonl')]);
  for (const r of ['ana', 'ben', 'chloe']) verity(file, ['raters', 'add', r]);

  const served = path.join(dir, 'chat');
  execFileSync('mkdir', ['-p', served]);
  const server = spawn(path.join(root, 'target/debug/examples/chat_serve'), [served, '--answers', path.join(dir, 'replies.json')], { stdio: 'ignore' });
  try {
    const port = path.join(served, 'port');
    for (let i = 0; i < 200 && !existsSync(port); i++) await new Promise((r) => setTimeout(r, 50));
    verity(file, ['models', 'add', 'gpt', '--endpoint', `http://127.0.0.1:${readFileSync(port, 'utf8').trim()}/v1`, '--model', 'm', '--api-key-env', KEY_VARIABLE]);
    verity(file, ['models', 'rate', 'gpt', '--all'], { [KEY_VARIABLE]: 'none' });
  } finally {
    server.kill();
  }
  const results = (easy) => Object.fromEntries(ids.map((id, i) => [`instance_${id}`, underspecified(i) ? i % 5 === 0 : (i * 13) % 100 < easy]));
  writeFileSync(path.join(dir, 'alpha.eval_results.json'), JSON.stringify(results(60)));
  writeFileSync(path.join(dir, 'beta.eval_results.json'), JSON.stringify(results(35)));
  verity(file, ['results', 'import', path.join(dir, 'alpha.eval_results.json'), path.join(dir, 'beta.eval_results.json')]);
  return { file, dir, ids };
}

/** Every rater answers their tasks of the sample, as the task's pattern says. */
function rateTheSample({ file, dir, ids }) {
  for (const rater of ['ana', 'ben', 'chloe']) {
    const queue = JSON.parse(verity(file, ['queue', '--as', rater, '--json']));
    for (const item of queue) {
      const i = ids.indexOf(item.instance_id);
      const path_ = path.join(dir, 'answer.json');
      writeFileSync(path_, JSON.stringify(answer(underspecified(i) ? 2 : 0, 3)));
      verity(file, ['answer', '--rater', rater, '--case', item.instance_id, '--file', path_, '--submit']);
    }
  }
}

/** Clicks the element with that test id once it is scrolled to the middle of its pane. */
async function press(browser, testid) {
  const el = await find(browser, `[data-testid="${testid}"]`);
  await el.scrollIntoView({ block: 'center' });
  await el.click();
}

async function textOf(browser, selector) {
  return browser.execute((s) => document.querySelector(s)?.textContent.trim() ?? '', selector);
}

test('the coordinator draws a random sample in the app, and reads each estimate beside the humans alone', async () => {
  const p = await project();
  const browser = await startApp({ args: [p.file] });
  try {
    await (await find(browser, '[data-testid="coordinator"]', 60_000)).click();
    await press(browser, 'coord-agreement');
    await press(browser, 'agreement-few-humans-open');
    await until(browser, async () => (await textOf(browser, '[data-testid="agreement-few-humans-sample-status"]')).includes(`No sample drawn yet: ${TASKS} tasks`), 'the sample’s status is not shown');

    // Before any sample, an estimate is refused with its reason.
    await press(browser, 'agreement-few-humans-estimate-run');
    await until(browser, async () => (await textOf(browser, '[data-testid="agreement-few-humans-estimate-error"]')).includes('not a recorded random sample'), 'no refusal without a sample');

    // Draw 36 tasks, three raters each, from the app.
    const size = await find(browser, '[data-testid="agreement-few-humans-sample-size"]');
    await size.setValue('36');
    await press(browser, 'agreement-few-humans-sample-draw');
    await until(browser, async () => (await textOf(browser, '[data-testid="agreement-few-humans-sample-notice"]')).includes('108 assignments made'), 'the draw was not made');
    // The notice comes with the draw's reply; the status is read again after it.
    await until(browser, async () => /36 tasks drawn in 1 draw, 0 complete/.test(await textOf(browser, '[data-testid="agreement-few-humans-sample-status"]')), 'the sample’s status does not show the draw');

    // The raters answer their tasks (the command line stands in for their sessions).
    rateTheSample(p);
    await press(browser, 'agreement-few-humans-estimate-run');
    const table = await find(browser, '[data-testid="agreement-few-humans-estimate-table"]', 30_000);
    await until(browser, async () => (await table.getText()).includes('Humans alone'), 'the estimate is not shown');
    const rows = await browser.execute(() => [...document.querySelectorAll('[data-testid="agreement-few-humans-estimate-table"] tbody tr')].map((r) => [...r.children].map((c) => c.textContent.trim())));
    assert.equal(rows.length, 2);
    assert.match(rows[0][0], /^Prediction-powered/);
    assert.equal(rows[1][0], 'Humans alone');
    assert.equal(rows[1][4], '36', 'the humans alone stand on the 36 labelled tasks');
    const half = (row) => Number(row[3].match(/±([\d.]+)/)[1]);
    assert.ok(half(rows[0]) < half(rows[1]), `the model narrows the interval: ${rows[0][3]} against ${rows[1][3]}`);
    assert.match(await textOf(browser, '[data-testid="agreement-few-humans-estimate-sample"]'), /36 labelled tasks of a uniform sample: 36 of 90 tasks drawn \(36 uniformly, seed 0, 3 raters each\)/);
    // Of a population of tasks like these, ±3 points is out of reach with 90 tasks; of these
    // tasks themselves (the finite population), it is a number of tasks more.
    assert.match(await textOf(browser, '[data-testid="agreement-few-humans-estimate-target-text"]'), /To reach ±3\.0 points: no number short of every task reaches it/);
    await press(browser, 'agreement-few-humans-estimate-finite');
    await press(browser, 'agreement-few-humans-estimate-run');
    await until(browser, async () => /To reach ±3\.0 points: rate \d+ more tasks? \(humans alone: rate \d+ more tasks?\)/.test(await textOf(browser, '[data-testid="agreement-few-humans-estimate-target-text"]')), 'no number of tasks to reach ±3 points in the finite population');
    await press(browser, 'agreement-few-humans-sample-refresh');
    await until(browser, async () => /36 tasks drawn in 1 draw, 36 complete/.test(await textOf(browser, '[data-testid="agreement-few-humans-sample-status"]')), 'the sample’s status does not count the answered tasks');
    const chart = await find(browser, '[data-testid="agreement-few-humans-estimate-chart"]');
    assert.match(await chart.getAttribute('aria-label'), /Humans alone/);
    await (await find(browser, '[data-testid="agreement-few-humans-estimate"]')).scrollIntoView({ block: 'start' });
    await shot(browser, 'coordinator-few-humans');
    await checkAccessibility(browser, 'the Agreement section’s estimates from few humans', { screenshot: 'coordinator-few-humans' });

    // Scores: each system's determinate-only rate from the sample, beside the labelled tasks.
    await press(browser, 'coord-scores');
    await find(browser, '[data-testid="scores-table"]', 30_000);
    await press(browser, 'scores-few-humans-open');
    await press(browser, 'scores-ppi-run');
    const ppi = await find(browser, '[data-testid="scores-ppi-table"]', 30_000);
    await until(browser, async () => (await ppi.getText()).includes('beta'), 'the rates from the sample are not shown');
    const systems = await browser.execute(() => [...document.querySelectorAll('[data-testid="scores-ppi-table"] tbody tr')].map((r) => [...r.children].map((c) => c.textContent.trim())));
    assert.deepEqual(systems.map((s) => s[0]).sort(), ['alpha', 'beta']);
    for (const s of systems) assert.match(s[2], /^\[[\d.-]+, [\d.-]+\]$/, `an interval for ${s[0]}`);
    assert.match(await textOf(browser, '[data-testid="scores-ppi-pairs"]'), /alpha − beta|beta − alpha/);
    // The determinate share, with what more tasks would buy.
    await press(browser, 'scores-few-humans-estimate-finite');
    await press(browser, 'scores-few-humans-estimate-run');
    await until(browser, async () => /rate \d+ more tasks?/.test(await textOf(browser, '[data-testid="scores-few-humans-estimate-target-text"]')), 'the Scores section’s estimate says no number of tasks');
    await (await find(browser, '[data-testid="scores-ppi"]')).scrollIntoView({ block: 'start' });
    await shot(browser, 'coordinator-scores-few-humans');
    await checkAccessibility(browser, 'the Scores section’s rates from few humans', { screenshot: 'coordinator-scores-few-humans' });
  } finally {
    await browser.deleteSession();
  }
});
