import { test } from 'node:test';
import assert from 'node:assert/strict';
import { find, openDemoAs, shot, startApp, until } from './harness.mjs';

// Runs after 02-rater (Amara submitted one task). Agreement charts wait for the agreement `ops`
// functions; the progress view shows statuses only, never answers.
test('the coordinator sees progress per rater and per task', async () => {
  const browser = await startApp();
  try {
    await openDemoAs(browser, 'Amara Nwosu');
    await (await find(browser, '[data-testid="mode-coordinator"]')).click();
    const table = await find(browser, '[data-testid="case-progress"]');
    await until(browser, async () => (await table.getText()).includes('done'), 'no submitted task shows as done');
    const text = await table.getText();
    assert.match(text, /demo__tinylib-\d+/);
    const html = await browser.execute(() => document.body.innerHTML);
    assert.doesNotMatch(html, /underspecified_notes|The issue names parse_duration/, 'no answer content reaches the coordinator view');
    await shot(browser, 'coordinator-progress');
  } finally {
    await browser.deleteSession();
  }
});
