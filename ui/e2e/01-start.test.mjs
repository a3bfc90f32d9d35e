import { test } from 'node:test';
import assert from 'node:assert/strict';
import { find, shot, startApp, textOf } from './harness.mjs';

test('the first start opens the demo project and asks who is using it', async () => {
  const browser = await startApp();
  try {
    await find(browser, '[data-testid="coordinator"]', 60_000);
    const raters = await browser.$$('[data-testid="rater"]');
    assert.equal(raters.length, 3, 'the demo project has three raters');
    assert.match(await textOf(browser, 'header'), /demo\.verity/);
    await shot(browser, 'start');
  } finally {
    await browser.deleteSession();
  }
});
