import { test } from 'node:test';
import assert from 'node:assert/strict';
import { find, shot, startApp } from './harness.mjs';

test('the app starts and offers the demo project', async () => {
  const browser = await startApp();
  try {
    const demo = await find(browser, '[data-testid="open-demo"]');
    assert.equal(await demo.getText(), 'Open the demo project');
    await shot(browser, 'start');
  } finally {
    await browser.deleteSession();
  }
});
