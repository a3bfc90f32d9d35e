import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { find, focus, openDemoAs, shot, startApp, textOf, typeText, until } from './harness.mjs';

/** The app's pid: tauri-driver -> WebKitWebDriver -> the app. */
function appPid() {
  const driver = process.env.VERITY_DRIVER_PID;
  assert.ok(driver, 'scripts/e2e.sh passes VERITY_DRIVER_PID');
  const children = (pid) => {
    try {
      return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  const apps = children(driver).flatMap(children);
  assert.equal(apps.length, 1, `expected one app process under tauri-driver, found ${apps.length}`);
  return Number(apps[0]);
}

test('killing the app mid-draft loses at most the last second', async () => {
  const note = 'Draft typed before the app was killed: the issue gives the function name and the message.';
  let browser = await startApp();
  try {
    await openDemoAs(browser, 'Tomas Ibarra');
    const task = await textOf(browser, '[data-testid="task-id"]');
    await focus(browser, '#opt-underspecified-0');
    await browser.keys(['2']);
    await browser.keys(['Tab']);
    await typeText(browser, note);
    await until(browser, async () => (await textOf(browser, '[data-testid="saved-at"]')).startsWith('Draft saved at'), 'no autosave');
    // The autosave delay is 0.5 s; wait one second after the last key, then kill.
    await browser.pause(1000);
    process.kill(appPid(), 'SIGKILL');
    await browser.deleteSession().catch(() => {});

    browser = await startApp();
    await openDemoAs(browser, 'Tomas Ibarra');
    assert.equal(await textOf(browser, '[data-testid="task-id"]'), task, 'the task in progress opens first');
    const area = await find(browser, '#text-underspecified_notes');
    assert.equal(await area.getValue(), note);
    assert.ok(await browser.$('#opt-underspecified-2').isSelected(), 'the scale value survived');
    await shot(browser, 'restart-draft-restored');
  } finally {
    await browser.deleteSession().catch(() => {});
  }
});
