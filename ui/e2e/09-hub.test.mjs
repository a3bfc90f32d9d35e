import { test } from 'node:test';
import assert from 'node:assert/strict';
import { find, openDemoAsCoordinator, reopenDemo, shot, startApp, textOf, until } from './harness.mjs';
import { checkAccessibility } from './a11y.mjs';

// scripts/e2e.sh serves a 24-row split of bench/swe-bench on a Hub at 127.0.0.1 (HF_ENDPOINT).
test('the coordinator fetches a dataset from the Hugging Face Hub into the project', async () => {
  assert.ok(process.env.HF_ENDPOINT, 'scripts/e2e.sh starts a Hub and sets HF_ENDPOINT');
  reopenDemo();
  const browser = await startApp();
  try {
    await openDemoAsCoordinator(browser);
    await (await find(browser, '[data-testid="coord-data"]')).click();
    await (await find(browser, '[data-testid="hub-open"]')).click();
    const dataset = await find(browser, '[data-testid="hub-dataset"]');
    await dataset.setValue('bench/swe-bench');
    await shot(browser, 'hub-fetch-form');
    await checkAccessibility(browser, 'the coordinator’s import and export');
    await (await find(browser, '[data-testid="hub-fetch"]')).click();
    const result = await find(browser, '[data-testid="fetch-result"]', 120_000);
    const text = await result.getText();
    assert.match(text, /^Fetched bench\/swe-bench \(test, main at be0c400\): 1 file, .* downloaded\. Imported 24 new tasks/);
    await shot(browser, 'hub-fetched');

    // The same revision again: served from the cache, nothing new.
    await (await find(browser, '[data-testid="hub-fetch"]')).click();
    await until(
      browser,
      async () => (await textOf(browser, '[data-testid="fetch-result"]')).includes('served from the cache, nothing downloaded. Imported 0 new tasks, 0 changed (new revisions), 24 unchanged.'),
      'the second fetch did not come from the cache',
      120_000,
    );

  } finally {
    await browser.deleteSession();
  }
});
