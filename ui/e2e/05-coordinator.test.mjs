import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerAll, find, openDemoAsCoordinator, shot, signInAs, signOut, startApp, textOf, until } from './harness.mjs';

/** The progress table as rows of cell texts, with the header row first. */
async function progressRows(browser) {
  return browser.execute(() =>
    [...document.querySelectorAll('[data-testid="case-progress"] [role="row"]')].map((row) =>
      [...row.querySelectorAll('[role="columnheader"], [role="cell"]')].map((c) => c.textContent.trim()),
    ),
  );
}

// Runs after 02-rater (Amara submitted one task) in the same app data folder.
test('the coordinator sees progress, then the agreement dashboard after a second rater submits', async () => {
  const browser = await startApp();
  try {
    await openDemoAsCoordinator(browser);
    const table = await find(browser, '[data-testid="case-progress"]');
    await until(browser, async () => (await table.getText()).includes('done'), 'no submitted task shows as done');
    const html = await browser.execute(() => document.body.innerHTML);
    assert.doesNotMatch(html, /The issue names parse_duration/, 'no justification reaches the progress view');
    await shot(browser, 'coordinator-progress');

    // The task Amara submitted, and the other rater assigned to it.
    const [header, ...rows] = await progressRows(browser);
    assert.equal(header[2], 'Risk', `the task list has a Risk column: ${header.join(', ')}`);
    // Sorting by risk asks the Rust side for the riskiest tasks first; then back to id order.
    await (await find(browser, '[data-testid="sort-risk"]')).click();
    await until(browser, async () => (await (await find(browser, '[data-testid="sort-risk"]')).parentElement().getAttribute('aria-sort')) === 'descending', 'the Risk header did not sort');
    await (await find(browser, '[data-testid="sort-id"]')).click();
    await until(browser, async () => JSON.stringify(await progressRows(browser)) === JSON.stringify([header, ...rows]), 'id order did not come back');
    const amara = header.indexOf('Amara Nwosu');
    assert.ok(amara > 0, `no column for Amara in ${header.join(', ')}`);
    const row = rows.find((r) => r[amara].startsWith('done'));
    assert.ok(row, 'no task shows Amara as done');
    const second = header.find((name, i) => i > 1 && i !== amara && !row[i].startsWith('–'));
    assert.ok(second, `no second rater is assigned to ${row[0]}`);

    // A rater's session cannot reach the coordinator's commands.
    await signOut(browser);
    await signInAs(browser, second);
    const refused = await browser.executeAsync((done) => {
      window.__TAURI_INTERNALS__.invoke('disagreement_page', { query: { offset: 0, limit: 10, question: null, open_only: false } }).then(() => done('allowed'), (e) => done(e.code));
    });
    assert.equal(refused, 'coordinator_only');

    // The second rater answers the same task differently and submits.
    await (await find(browser, `//button[@data-testid="queue-item"][contains(., "${row[0]}")]`)).click();
    await until(browser, async () => (await textOf(browser, '[data-testid="task-id"]')) === row[0], `${row[0]} did not open`);
    await answerAll(browser, { specified: 3, scope: 0, difficulty: 1, confidence: 2 });
    await browser.keys(['Control', 'Enter']);
    await until(browser, async () => (await textOf(browser, '[data-testid="notice"]')).includes(`Submitted ${row[0]}`), 'the second rater could not submit');

    // The coordinator's dashboard now has a unit rated twice.
    await signOut(browser);
    await (await find(browser, '[data-testid="coordinator"]')).click();
    await (await find(browser, '[data-testid="coord-agreement"]')).click();
    const dashboard = await find(browser, '[data-testid="agreement-dashboard"]', 30_000);
    await until(browser, async () => (await dashboard.getText()).includes('Krippendorff'), 'the dashboard shows no coefficient');
    const text = await dashboard.getText();
    assert.match(text, /1\.1/);
    assert.match(text, new RegExp(second));
    await shot(browser, 'coordinator-agreement');

    await (await find(browser, '[data-testid="coord-disagreements"]')).click();
    const item = await find(browser, '[data-testid="disagreement"]', 30_000);
    assert.match(await item.getText(), new RegExp(row[0]));
    await shot(browser, 'coordinator-disagreements');
  } finally {
    await browser.deleteSession();
  }
});
