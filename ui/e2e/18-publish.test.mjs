import { test } from 'node:test';
import assert from 'node:assert/strict';
import { find, openDemoAsCoordinator, reopenDemo, shot, startApp, textOf, until } from './harness.mjs';
import { checkAccessibility } from './a11y.mjs';

// scripts/e2e.sh serves a Hub at 127.0.0.1 (HF_ENDPOINT) that takes uploads with the token it
// gives the app (HF_TOKEN).
test('the coordinator reads the dataset card, publishes the panel to the Hub, and fetches it back unchanged', async () => {
  assert.ok(process.env.HF_ENDPOINT && process.env.HF_TOKEN, 'scripts/e2e.sh starts a Hub and sets HF_ENDPOINT and HF_TOKEN');
  reopenDemo();
  const browser = await startApp();
  try {
    await openDemoAsCoordinator(browser);
    await (await find(browser, '[data-testid="coord-data"]')).click();
    await (await find(browser, '[data-testid="publish-repo"]')).setValue('e2e/demo-panel');
    await (await find(browser, '[data-testid="publish-license"]')).setValue('cc-by-4.0');
    await (await find(browser, '[data-testid="publish-subset"]')).selectByAttribute('value', 'all');
    await (await find(browser, '[data-testid="publish-prepare"]')).click();

    // The card, as the Hub will show it, before anything is uploaded.
    const card = await find(browser, '[data-testid="publish-card"]', 60_000);
    const text = await card.getText();
    // The demo's twelve tasks, and those an earlier test fetched into it (every task is asked for).
    const tasks = Number(/(\d+) software-engineering tasks/.exec(text)?.[1]);
    assert.ok(tasks >= 12, text.slice(0, 200));
    assert.match(text, /load_dataset\("e2e\/demo-panel", split="test"\)/);
    assert.match(text, /Krippendorff/);
    await (await find(browser, '[data-testid="publish-card"]')).scrollIntoView();
    await shot(browser, 'coordinator-publish-card');
    await checkAccessibility(browser, 'the dataset card before publishing');

    await (await find(browser, '[data-testid="publish-upload"]')).click();
    const result = await find(browser, '[data-testid="publish-result"]', 120_000);
    assert.match(await result.getText(), /^Created the public repository e2e\/demo-panel\. Committed [0-9a-f]{7} to e2e\/demo-panel on main \(3 to send, 0 already uploaded, 0 unchanged;/);
    await until(browser, async () => !(await (await browser.$('[data-testid="publish-job"]')).isExisting()), 'the progress bar stayed');
    await result.scrollIntoView();
    await shot(browser, 'coordinator-published');

    // Publishing again sends nothing: every file is there.
    await (await find(browser, '[data-testid="publish-upload"]')).click();
    await until(
      browser,
      async () => (await textOf(browser, '[data-testid="publish-result"]')).startsWith('Nothing changed: e2e/demo-panel on main already holds every file.'),
      'a second publication was not a no-op',
      60_000,
    );

    // The published tasks fetch back into the project they came from as the same tasks.
    await (await find(browser, '[data-testid="hub-open"]')).click();
    await (await find(browser, '[data-testid="hub-dataset"]')).setValue('e2e/demo-panel');
    await (await find(browser, '[data-testid="hub-fetch"]')).click();
    await until(
      browser,
      async () => (await textOf(browser, '[data-testid="fetch-result"]')).includes(`Imported 0 new tasks, 0 changed (new revisions), ${tasks} unchanged.`),
      'the published tasks did not come back unchanged',
      120_000,
    );
  } finally {
    await browser.deleteSession();
  }
});
