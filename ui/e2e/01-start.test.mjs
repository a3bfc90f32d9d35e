import { test } from 'node:test';
import assert from 'node:assert/strict';
import { find, openDemoAsCoordinator, shot, startApp, textOf, until } from './harness.mjs';

test('the first start opens the demo project and asks who is using it', async () => {
  const browser = await startApp();
  try {
    await find(browser, '[data-testid="coordinator"]', 60_000);
    const raters = await browser.$$('[data-testid="rater"]');
    assert.equal(raters.length, 3, 'the demo project has three raters');
    assert.match(await textOf(browser, 'header'), /demo\.verity/);
    // A finished round: every rater has submitted every task.
    for (const rater of raters) assert.match(await rater.getText(), /12 \/ 12 done/);
    await shot(browser, 'start');
  } finally {
    await browser.deleteSession();
  }
});

// Runs after the test above, on the same demo project.
test('on first open the coordinator sees agreement and disagreements with real figures', async () => {
  const browser = await startApp();
  try {
    await openDemoAsCoordinator(browser);
    await (await find(browser, '[data-testid="coord-agreement"]')).click();
    const dashboard = await find(browser, '[data-testid="agreement-dashboard"]', 30_000);
    await until(browser, async () => (await dashboard.getText()).includes('Krippendorff'), 'the dashboard shows no coefficient');
    const text = await dashboard.getText();
    for (const rater of ['Amara Nwosu', 'Tomas Ibarra', 'Lena Vogt']) assert.match(text, new RegExp(rater));
    // Every question's alpha is a number, none undefined.
    const alphas = await browser.execute(() =>
      [...document.querySelectorAll('[data-testid="coefficients"] tr.main td:nth-child(2)')].map((td) => [td.textContent.trim(), td.classList.contains('undefined')]),
    );
    assert.ok(alphas.length >= 4, `alpha for each rated question: ${JSON.stringify(alphas)}`);
    for (const [value, undefinedValue] of alphas) {
      assert.equal(undefinedValue, false, `an alpha is undefined: ${JSON.stringify(alphas)}`);
      assert.match(value, /^[−-]?\d\.\d+$/);
    }
    await shot(browser, 'coordinator-demo-agreement');

    await (await find(browser, '[data-testid="coord-disagreements"]')).click();
    await find(browser, '[data-testid="disagreement"]', 30_000);
    const count = await textOf(browser, '[data-testid="disagreement-count"]');
    assert.match(count, /disagreements, \d+ not adjudicated/);
    const settled = await browser.execute(() => document.querySelectorAll('[data-testid="disagreement"] .settled').length);
    assert.equal(settled, 1, 'the demo holds one adjudication');
    await shot(browser, 'coordinator-demo-disagreements');

    // Rater quality: each rater against the demo's reference, the fast one flagged.
    await (await find(browser, '[data-testid="coord-raters"]')).click();
    await find(browser, '[data-testid="quality-table"]', 30_000);
    const rows = await browser.execute(() =>
      [...document.querySelectorAll('[data-testid="quality-row"]')].map((tr) => [...tr.children].map((td) => td.textContent.replace(/\s+/g, ' ').trim())),
    );
    assert.equal(rows.length, 3, JSON.stringify(rows));
    for (const row of rows) assert.match(row[3], /^\d\.\d\d$/, `an accuracy for each rater: ${JSON.stringify(rows)}`);
    const lena = rows.find((r) => r[0] === 'Lena Vogt');
    assert.match(lena[9], /flagged/, `Lena's fast submissions are flagged: ${JSON.stringify(lena)}`);
    assert.match(await textOf(browser, '[data-testid="calibration-count"]'), /^6$/);
    await (await find(browser, '//button[contains(., "Lena Vogt")]')).click();
    await find(browser, '[data-testid="quality-detail"]');
    await shot(browser, 'coordinator-demo-raters');
  } finally {
    await browser.deleteSession();
  }
});

// Leaves the empty demo open: the rater tests that follow start from it.
test('the start screen opens the empty demo, with nothing answered yet', async () => {
  const browser = await startApp();
  try {
    await find(browser, '[data-testid="coordinator"]', 60_000);
    await (await find(browser, '[data-testid="other-project"]')).click();
    await (await find(browser, '[data-testid="open-empty-demo"]')).click();
    await until(browser, async () => /demo-empty\.verity/.test(await textOf(browser, 'header')), 'the empty demo did not open');
    const raters = await browser.$$('[data-testid="rater"]');
    assert.equal(raters.length, 3);
    for (const rater of raters) assert.match(await rater.getText(), /0 \/ 8 done/);
  } finally {
    await browser.deleteSession();
  }
});
