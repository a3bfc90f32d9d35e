// Starts the real app through tauri-driver (started by scripts/e2e.sh) and saves screenshots.
import { remote } from 'webdriverio';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const app = process.env.VERITY_APP;
const port = Number(process.env.VERITY_DRIVER_PORT ?? 4444);
const shots = process.env.VERITY_SCREENSHOTS;
if (!app || !shots) {
  throw new Error('Run the end-to-end tests through scripts/e2e.sh: VERITY_APP and VERITY_SCREENSHOTS are not set.');
}

/** A WebdriverIO session on a freshly started app, given `args` on its command line. */
export async function startApp({ args = [] } = {}) {
  const browser = await remote({
    hostname: '127.0.0.1',
    port,
    logLevel: 'warn',
    // Waits poll every 50 ms instead of WebdriverIO's 500: the benchmark times start-up with
    // them, and a 500 ms step is a quarter of its 2 s target.
    waitforInterval: 50,
    capabilities: { 'tauri:options': { application: app, args } },
  });
  await browser.setTimeout({ implicit: 0 });
  return browser;
}

/** Makes the next start open the app's demo project (earlier tests leave another open);
 * returns the demo project's path, made by the command line if it does not exist yet. */
export function reopenDemo() {
  const cli = process.env.VERITY_CLI;
  const data = process.env.XDG_DATA_HOME;
  if (!cli || !data) throw new Error('scripts/e2e.sh passes VERITY_CLI and XDG_DATA_HOME');
  const project = execFileSync(cli, ['demo'], { encoding: 'utf8' }).trim().split('\n').pop();
  const folder = path.join(data, 'dev.verity.desktop');
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'last-project'), project);
  return project;
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

/** The app opens the demo project on its first start (and the last project after that): picks `rater`. */
export async function openDemoAs(browser, rater) {
  await signInAs(browser, rater);
}

/** On the "who is using Verity" screen, picks `rater` and waits for their first task. */
export async function signInAs(browser, rater) {
  const button = await find(browser, `//button[@data-testid="rater"][contains(., "${rater}")]`, 60_000);
  await button.click();
  await find(browser, '[data-testid="task-id"]', 30_000);
}

/** Signs in to the demo project as the coordinator. */
export async function openDemoAsCoordinator(browser) {
  await (await find(browser, '[data-testid="coordinator"]', 60_000)).click();
  await find(browser, '[data-testid="coord-progress"]');
}

/** Back to the "who is using Verity" screen. */
export async function signOut(browser) {
  await (await find(browser, '[data-testid="sign-out"]')).click();
  await find(browser, '[data-testid="coordinator"]');
}

/** A justification of `n` characters. */
export const justification = (n) => 'The issue names parse_duration in tinylib/units.py and the expected error. '.repeat(4).slice(0, n);

/**
 * From the focused text of question 1.2 (filled), answers 2.1 to 3.5 by keyboard: `scope` for
 * 2.1, `difficulty` for 3.1 (by position), `confidence` for 3.5; 3.3 "no", 3.4 left empty.
 */
export async function answerSections2And3(browser, { scope, difficulty, confidence }) {
  await browser.keys(['Tab']);
  await browser.keys([String(scope)]);
  await browser.keys(['Tab']);
  await typeText(browser, justification(120));
  // 3.1 (a choice: digits pick by position), 3.2, 3.3 (yes/no: 0), 3.4 (optional), 3.5.
  await browser.keys(['Tab']);
  await browser.keys([String(difficulty)]);
  await browser.keys(['Tab']);
  await typeText(browser, justification(60));
  await browser.keys(['Tab']);
  await browser.keys(['0']);
  // One key per call: WebKitWebDriver merges a repeated key inside one action sequence.
  await browser.keys(['Tab']);
  await browser.keys(['Tab']);
  await browser.keys([String(confidence)]);
}

/** Answers every question of the open task by keyboard. */
export async function answerAll(browser, { specified, scope, difficulty, confidence }) {
  await focus(browser, '#opt-underspecified-0');
  await browser.keys([String(specified)]);
  await browser.keys(['Tab']);
  await typeText(browser, justification(110));
  await answerSections2And3(browser, { scope, difficulty, confidence });
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
