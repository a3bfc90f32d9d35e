import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAccessibility } from './a11y.mjs';
import { find, openDemoAsCoordinator, reopenDemo, shot, startApp, until } from './harness.mjs';

// scripts/e2e.sh serves a Chat Completions endpoint on 127.0.0.1 that answers after 500 ms and
// only with the key in VERITY_E2E_CHAT_KEY, which the app inherits and reads by that name.
const endpoint = process.env.VERITY_E2E_CHAT_URL;
const KEY_VARIABLE = 'VERITY_E2E_CHAT_KEY';

/** The text of the first element matching `selector`, '' when there is none, read in one step
 * in the page: the run's progress line comes and goes while it is polled, and WebKit's driver
 * crashed (a segfault) reading an element removed between finding it and reading it. */
async function textOf(browser, selector) {
  return browser.execute((s) => document.querySelector(s)?.textContent.trim() ?? '', selector);
}

/** Clicks the element with that test id once it is scrolled to the middle of its pane (the
 * section scrolls inside the window, and WebKit's driver misses a button at the pane's edge). */
async function press(browser, testid) {
  const el = await find(browser, `[data-testid="${testid}"]`);
  await el.scrollIntoView({ block: 'center' });
  await el.click();
}

/** Fills the Add a model form and submits it; waits for the model's row. */
async function addModel(browser, name, seed) {
  const fields = {
    'model-name': name,
    'model-endpoint': endpoint,
    'model-model': 'e2e-small',
    'model-key-env': KEY_VARIABLE,
    'model-temperature': '0',
    'model-seed': String(seed),
    'model-max-tokens': '400',
    'model-price-in': '0.15',
    'model-price-out': '0.6',
  };
  for (const [id, value] of Object.entries(fields)) await (await find(browser, `[data-testid="${id}"]`)).setValue(value);
  await press(browser, 'add-model');
  await until(browser, async () => (await textOf(browser, '[data-testid="model-added"]')).includes(name), `${name} was not added`);
  // The message comes with the reply; the table lists the model once it has read the list again.
  await until(browser, async () => (await modelRow(browser, name)) !== null, `${name} is not listed`);
}

/** Picks `name` to run over the demo's own tasks (the project may hold others from earlier tests). */
async function chooseDemoTasks(browser, name) {
  await (await find(browser, '[data-testid="run-model"]')).selectByVisibleText(name);
  await (await find(browser, '[data-testid="run-chosen"]')).click();
  await (await find(browser, '[data-testid="run-task-search"]')).setValue('demo__tinylib');
  await until(browser, async () => (await browser.$$('[data-testid="run-task"]')).length === 12, 'the twelve demo tasks are not listed');
  await press(browser, 'run-choose-shown');
  await until(browser, async () => (await textOf(browser, '[data-testid="run-chosen-count"]')) === '12', 'the twelve tasks are not chosen');
}

/** The Models table's row of `name`, as cell texts. */
async function modelRow(browser, name) {
  return browser.execute((wanted) => {
    const row = [...document.querySelectorAll('[data-testid="model-row"]')].find((r) => r.children[0].textContent.trim() === wanted);
    return row ? [...row.children].map((c) => c.textContent.trim()) : null;
  }, name);
}

test('the coordinator adds a model, runs it with live progress, stops a second run, sees its answers marked and the comparison', async () => {
  assert.ok(endpoint, 'scripts/e2e.sh exports VERITY_E2E_CHAT_URL');
  reopenDemo();
  const browser = await startApp();
  try {
    await openDemoAsCoordinator(browser);
    await (await find(browser, '[data-testid="coord-models"]')).click();
    await find(browser, '[data-testid="models-empty"]', 30_000);

    await addModel(browser, 'e2e-model', 11);
    const added = await modelRow(browser, 'e2e-model');
    assert.deepEqual(added.slice(0, 11), ['e2e-model', 'e2e-small', endpoint, KEY_VARIABLE, '0', '11', '$0.15', '$0.6', '0', '0', '$0.0000']);

    // The first run: every demo task, two at a time, 500 ms a reply: progress shows on the way.
    await chooseDemoTasks(browser, 'e2e-model');
    await (await find(browser, '[data-testid="run-concurrency"]')).setValue('2');
    await press(browser, 'run-start');
    let shown = '';
    await until(
      browser,
      async () => {
        shown = (await textOf(browser, '[data-testid="run-progress-text"]')) || (await textOf(browser, 'section[aria-labelledby="models-run"] [role="alert"]'));
        return /^[1-9]\d* of 12 tasks · \d+ rated · 0 failed · 0 skipped · [1-9]\d* tokens in, [1-9]\d* out · \$0\.\d{4}$/.test(shown);
      },
      'no live progress with tasks, tokens and dollars',
      30_000,
    ).catch((e) => assert.fail(`${e.message}; the section showed: ${shown}`));
    await shot(browser, 'coordinator-models-running');
    await find(browser, '[data-testid="run-result"]', 60_000);
    assert.match(await textOf(browser, '[data-testid="run-result"]'), /^Rated 12, failed 0, skipped 0 \(already answered\); [1-9]\d* tokens in, [1-9]\d* out; cost \$0\.\d{4}\.$/);
    await until(browser, async () => (await modelRow(browser, 'e2e-model'))?.[8] === '12', 'the table does not count the twelve answers');
    const after = await modelRow(browser, 'e2e-model');
    assert.equal(after[9], '0');
    assert.match(after[10], /^\$0\.\d{4}$/);
    assert.notEqual(after[10], '$0.0000');

    // A second model, one request at a time: Stop ends it midway, keeping what it stored.
    // Another seed: the same request as the first model's would be answered from the project's
    // reply cache, at once and for nothing.
    await addModel(browser, 'e2e-second', 12);
    await chooseDemoTasks(browser, 'e2e-second');
    await (await find(browser, '[data-testid="run-concurrency"]')).setValue('1');
    await press(browser, 'run-start');
    await until(browser, async () => /^[1-9]\d* of 12 tasks/.test(await textOf(browser, '[data-testid="run-progress-text"]')), 'the second run shows no progress', 30_000);
    // Stop: no new request; the one in flight is answered and its answer kept.
    await press(browser, 'run-stop');
    await find(browser, '[data-testid="run-stopped"]', 30_000);
    assert.match(await textOf(browser, '[data-testid="run-stopped"]'), /^Stopped: ([1-9]|1[01]) tasks? left unrated \(run again to go on; nothing paid for is asked again\)\.$/);
    const rated = Number((await textOf(browser, '[data-testid="run-result"]')).match(/^Rated (\d+)/)[1]);
    assert.ok(rated >= 1 && rated < 12, `the stopped run rated ${rated} of 12`);
    await until(browser, async () => (await modelRow(browser, 'e2e-second'))?.[8] === String(rated), 'the table does not count the stopped run’s answers');
    await browser.execute(() => document.querySelector('[data-testid="models-table"]').scrollIntoView({ block: 'start' }));
    const overflow = await browser.execute(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, 'the window scrolls sideways on the Models section');
    await shot(browser, 'coordinator-models');
    await checkAccessibility(browser, 'the coordinator’s Models section', { screenshot: 'coordinator-models' });

    // The comparison: the demo's three humans rated twelve tasks each, too few for the test.
    await press(browser, 'compare-models');
    await find(browser, '[data-testid="compare-table"]', 60_000);
    await browser.execute(() => document.getElementById('models-compare').scrollIntoView({ block: 'start' }));
    const rows = await browser.execute(() => [...document.querySelectorAll('[data-testid="compare-row"]')].map((r) => [...r.children].map((c) => c.textContent.trim())));
    assert.ok(rows.some((r) => r[0] === 'e2e-model'), 'the comparison has no row for the model');
    const refused = await textOf(browser, '[data-testid="compare-refused"]');
    assert.match(refused, /^Not tested: .*30/);
    await shot(browser, 'coordinator-models-compare');
    await checkAccessibility(browser, 'the models’ comparison', { screenshot: 'coordinator-models-compare' });

    // The models' answers are marked: in the progress columns, and in the disagreements once
    // the panel's figures include them.
    await press(browser, 'include-models');
    await (await find(browser, '[data-testid="coord-progress"]')).click();
    await until(browser, async () => (await browser.$$('[data-testid="case-progress"] [data-testid="model-badge"]')).length === 2, 'the progress columns do not mark the two models');
    await (await find(browser, '[data-testid="coord-disagreements"]')).click();
    await until(
      browser,
      async () => browser.execute(() => [...document.querySelectorAll('[data-testid="answer-chip"]')].some((c) => c.textContent.includes('e2e-model') && c.querySelector('[data-testid="model-badge"]')?.textContent === 'model')),
      'no disagreement marks the model’s answer',
      30_000,
    );
    await shot(browser, 'coordinator-disagreements-models');
    await checkAccessibility(browser, 'the disagreements with models’ answers', { screenshot: 'coordinator-disagreements-models' });

    // Agreement three ways: among the three humans, among the two models, and pooled.
    await (await find(browser, '[data-testid="coord-agreement"]')).click();
    await find(browser, '[data-testid="agreement-groups"]', 60_000);
    const groups = await browser.execute(() => [...document.querySelectorAll('[data-testid="agreement-group"]')].map((g) => [g.dataset.among, g.textContent.trim()]));
    assert.deepEqual(groups.map((g) => g[0]), ['humans', 'models', 'pooled']);
    assert.match(groups[0][1], /^Humans: 3 raters \(/);
    assert.match(groups[1][1], /^Models: 2 raters \(e2e-model, e2e-second\)|^Models: 2 raters \(e2e-second, e2e-model\)/);
    assert.match(groups[2][1], /^Pooled: 5 raters \(/);
    const measured = await browser.execute(() => [...document.querySelectorAll('[data-testid="agreement-group-row"][data-among="pooled"]')].map((r) => r.children[4].textContent.trim()));
    assert.ok(measured.some((alpha) => /^-?\d\.\d{3}$/.test(alpha)), `no pooled alpha is measured: ${measured}`);
    await browser.execute(() => document.querySelector('[data-testid="agreement-groups"]').scrollIntoView({ block: 'start' }));
    await shot(browser, 'coordinator-agreement-models');
    await checkAccessibility(browser, 'agreement among humans, models and pooled', { screenshot: 'coordinator-agreement-models' });
  } finally {
    await browser.deleteSession();
  }
});
