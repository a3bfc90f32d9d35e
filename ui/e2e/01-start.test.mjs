import { test } from 'node:test';
import assert from 'node:assert/strict';
import { find, openDemoAsCoordinator, shot, startApp, textOf, until } from './harness.mjs';
import { checkAccessibility } from './a11y.mjs';

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
    // Focus starts on the screen's heading, not on the page's body.
    assert.equal(await browser.execute(() => document.activeElement?.textContent), 'Who is using Verity?');
    await checkAccessibility(browser, 'the sign-in screen', { screenshot: 'start' });
  } finally {
    await browser.deleteSession();
  }
});

// Runs after the test above, on the same demo project.
test('on first open the coordinator sees agreement and disagreements with real figures', async () => {
  const browser = await startApp();
  try {
    await openDemoAsCoordinator(browser);
    await until(browser, async () => (await textOf(browser, '[data-testid="case-progress"]')).includes('done'), 'the progress table shows no task done');
    await checkAccessibility(browser, 'the coordinator’s progress', { screenshot: 'coordinator-demo-progress' });
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
    await checkAccessibility(browser, 'the coordinator’s agreement', { screenshot: 'coordinator-demo-agreement' });

    await (await find(browser, '[data-testid="coord-disagreements"]')).click();
    await find(browser, '[data-testid="disagreement"]', 30_000);
    const count = await textOf(browser, '[data-testid="disagreement-count"]');
    assert.match(count, /disagreements, \d+ not adjudicated/);
    const settled = await browser.execute(() => document.querySelectorAll('[data-testid="disagreement"] .settled').length);
    assert.equal(settled, 1, 'the demo holds one adjudication');
    await shot(browser, 'coordinator-demo-disagreements');
    // With one opened for adjudication.
    await (await find(browser, '[data-testid="disagreement"]')).click();
    await find(browser, '[data-testid="adjudication"]');
    await checkAccessibility(browser, 'the coordinator’s disagreements', { screenshot: 'coordinator-demo-disagreements' });

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
    // The whole table fits the section at 100%: nothing is cut or scrolled off to the right.
    const fit = await browser.execute(() => {
      const table = document.querySelector('[data-testid="quality-table"]');
      return { table: table.scrollWidth, room: table.parentElement.clientWidth };
    });
    assert.ok(fit.table <= fit.room, `the raters table is ${fit.table} px wide in ${fit.room} px`);
    await checkAccessibility(browser, 'the coordinator’s raters', { screenshot: 'coordinator-demo-raters' });

    await (await find(browser, '[data-testid="coord-ensemble"]')).click();
    await find(browser, '[data-testid="ensemble-table"]', 30_000);
    await checkAccessibility(browser, 'the coordinator’s ensemble', { screenshot: 'coordinator-demo-ensemble' });
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
    await (await find(browser, '[data-testid="other-project"]')).click();
    await find(browser, '[data-testid="open-demo"]');
    await checkAccessibility(browser, 'the start screen');
  } finally {
    await browser.deleteSession();
  }
});
