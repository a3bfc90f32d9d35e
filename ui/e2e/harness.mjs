// Starts the real app through tauri-driver (started by scripts/e2e.sh) and saves screenshots.
import { remote } from 'webdriverio';
import path from 'node:path';

const app = process.env.VERITY_APP;
const port = Number(process.env.VERITY_DRIVER_PORT ?? 4444);
const shots = process.env.VERITY_SCREENSHOTS;
if (!app || !shots) {
  throw new Error('Run the end-to-end tests through scripts/e2e.sh: VERITY_APP and VERITY_SCREENSHOTS are not set.');
}

/** A WebdriverIO session on a freshly started app. */
export async function startApp() {
  const browser = await remote({
    hostname: '127.0.0.1',
    port,
    logLevel: 'warn',
    capabilities: { 'tauri:options': { application: app } },
  });
  await browser.setTimeout({ implicit: 0 });
  return browser;
}

export async function shot(browser, name) {
  await browser.saveScreenshot(path.join(shots, `${name}.png`));
}

/** Waits for an element matching `selector` and returns it. */
export async function find(browser, selector, timeout = 15_000) {
  const el = await browser.$(selector);
  await el.waitForExist({ timeout });
  return el;
}

/** Waits until `predicate` returns a truthy value (polled). */
export async function until(browser, predicate, message, timeout = 15_000) {
  await browser.waitUntil(predicate, { timeout, interval: 100, timeoutMsg: message });
}

/** Opens the demo project and picks `rater` on the start screens. */
export async function openDemoAs(browser, rater) {
  await (await find(browser, '[data-testid="open-demo"]')).click();
  const button = await find(browser, `//button[@data-testid="rater"][contains(., "${rater}")]`, 60_000);
  await button.click();
  await find(browser, '[data-testid="task-id"]', 30_000);
}

/** Text of an element, or '' when it is absent. */
export async function textOf(browser, selector) {
  const el = await browser.$(selector);
  return (await el.isExisting()) ? el.getText() : '';
}

/** Focuses an element the way a user's Tab or click would. */
export async function focus(browser, selector) {
  await browser.execute((s) => document.querySelector(s)?.focus(), selector);
}

/**
 * Types `text` into the focused element. WebKitWebDriver drops spaces and repeated keys from a
 * per-character action sequence, so text goes through Element Send Keys, which still sends
 * real key events to the focused field.
 */
export async function typeText(browser, text) {
  const el = await browser.$(() => document.activeElement);
  await el.addValue(text);
}
