import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkAccessibility } from './a11y.mjs';
import { find, openDemoAsCoordinator, reopenDemo, shot, startApp, until } from './harness.mjs';

/** Two systems' outcomes on the demo's twelve tasks, in two of the formats Verity reads. */
function resultsFiles() {
  const dir = mkdtempSync(path.join(tmpdir(), 'verity-scores-'));
  const ids = Array.from({ length: 12 }, (_, i) => `demo__tinylib-${i + 1}`);
  const alpha = path.join(dir, 'alpha.csv');
  writeFileSync(alpha, 'instance_id,resolved\n' + ids.map((id, i) => `${id},${i < 8 ? 1 : 0}`).join('\n') + '\n');
  const beta = path.join(dir, 'beta.eval_results.json');
  writeFileSync(beta, JSON.stringify(Object.fromEntries(ids.slice(0, 11).map((id, i) => [id, i < 4 || i === 9]))));
  return [alpha, beta];
}

/** The scores table as rows of cell texts, header first. */
async function scoreRows(browser) {
  return browser.execute(() =>
    [...document.querySelectorAll('[data-testid="scores-table"] tr')].map((row) => [...row.children].map((c) => c.textContent.trim())),
  );
}

test('the coordinator imports two systems’ results and reads their scores, raw beside determinate-only', async () => {
  reopenDemo();
  const browser = await startApp();
  try {
    await openDemoAsCoordinator(browser);
    await (await find(browser, '[data-testid="coord-scores"]')).click();
    await find(browser, '[data-testid="scores-empty"]', 30_000);

    // The shell's own command imports them, as the Import results… button does after its dialog.
    const [alpha, beta] = resultsFiles();
    const imported = await browser.executeAsync((sources, done) => {
      window.__TAURI_INTERNALS__.invoke('import_results', { sources }).then((r) => done(r), (e) => done({ error: e }));
    }, [{ path: alpha, system: null }, { path: beta, system: null }]);
    assert.ok(Array.isArray(imported), `the import was refused: ${JSON.stringify(imported)}`);
    assert.deepEqual(imported.map((r) => [r.system, r.format, r.submitted, r.resolved]), [['alpha', 'csv', 12, 8], ['beta', 'swe-bench-pro-eval-results', 11, 5]]);

    await (await find(browser, '[data-testid="scores-refresh"]')).click();
    const table = await find(browser, '[data-testid="scores-table"]', 30_000);
    await until(browser, async () => (await table.getText()).includes('beta'), 'the table shows no system');
    const [header, first, second] = await scoreRows(browser);
    assert.deepEqual(header.slice(0, 6), ['System', 'Submitted', 'Raw rate', '95% interval', 'Rank', 'Determinate-only']);
    // The demo project the earlier tests used holds more than its twelve tasks (the hostile
    // fixture, the Hub's rows): a task a file does not mention counts as not resolved.
    const coverage = await (await find(browser, '[data-testid="scores-coverage"]')).getText();
    const total = Number(coverage.match(/^([\d,]+) tasks: \d+ determinate/)?.[1].replace(/,/g, ''));
    assert.ok(total >= 12, `the coverage line names no task count: ${coverage}`);
    const percent = (resolved) => `${((100 * resolved) / total).toFixed(1)}%`;
    assert.deepEqual(first.slice(0, 3), ['alpha', `12 / ${total}`, percent(8)]);
    assert.deepEqual(second.slice(0, 3), ['beta', `11 / ${total}`, percent(5)]);
    assert.equal(first[4], '1');
    assert.match(coverage, /decided by ensemble/);
    const caption = await browser.execute(() => document.querySelector('[data-testid="scores-table"] caption')?.textContent ?? '');
    assert.match(caption, /Kendall’s τ-b/);
    const chart = await find(browser, '[data-testid="scores-chart"]');
    assert.ok((await chart.getAttribute('aria-label')).includes(`alpha: raw ${percent(8)}`), 'the chart’s label reads out alpha’s raw rate');
    await shot(browser, 'coordinator-scores');
    await checkAccessibility(browser, 'the coordinator’s Scores section', { screenshot: 'coordinator-scores' });
  } finally {
    await browser.deleteSession();
  }
});
