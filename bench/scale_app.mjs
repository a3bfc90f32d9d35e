// Measures the desktop app on a large project for bench/scale_app.sh (issue 15's targets): a
// rater's queue after picking the rater, the coordinator's progress view, a search of the queue
// per keystroke, and the memory of the app and its WebKit processes once both were shown. Not a
// test: it prints one line per measure with its target and asserts nothing.
//
// Times are taken in the page, from the click (or the keystroke) to the frame after the one that
// first shows the result, so WebDriver's own latency is not in them.
import { find, startApp } from '../ui/e2e/harness.mjs';
import { appProcesses, proc, pssMb, pssParts, rssMb } from '../ui/e2e/memory.mjs';

const project = process.env.VERITY_SCALE_PROJECT;
const rater = process.env.VERITY_SCALE_RATER ?? '1';
// The word to search for; by default the longest word of the first task's title.
const chosenWord = process.env.VERITY_SCALE_WORD;
const driver = Number(process.env.VERITY_DRIVER_PID);
if (!project) throw new Error('Set VERITY_SCALE_PROJECT to the project file to measure.');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function report(measure, value, unit, target) {
  const verdict = target === null ? '' : value < target ? '  ok' : '  OVER';
  const goal = target === null ? '' : ` (target < ${target} ${unit})`;
  console.log(`scale: ${measure}: ${value.toFixed(0)} ${unit}${goal}${verdict}`);
}

/** Clicks what the XPath `selector` finds and resolves, in ms, when the view `kind` (`queue` or
 *  `progress`) first shows and the frame after it is painted. The queue shows once its rows are
 *  on screen and it is no longer busy; the progress table once it shows a task's row. */
async function timeClick(browser, selector, kind, timeout = 120_000) {
  const ms = await browser.executeAsync(
    (selector, kind, timeout, done) => {
      const shown = {
        queue: () =>
          document.querySelector('nav.queue')?.getAttribute('aria-busy') === 'false' &&
          document.querySelectorAll('[data-testid="queue-item"]').length > 0,
        progress: () => {
          const table = document.querySelector('[data-testid="case-progress"]');
          return table !== null && table.getAttribute('aria-busy') !== 'true' && table.querySelector('td, [role="cell"]:not([aria-busy])') !== null;
        },
      }[kind];
      const t0 = performance.now();
      const poll = () => {
        if (shown()) requestAnimationFrame(() => done(performance.now() - t0));
        else if (performance.now() - t0 > timeout) done(-1);
        else requestAnimationFrame(poll);
      };
      document.evaluate(selector, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue.click();
      poll();
    },
    selector,
    kind,
    timeout,
  );
  if (ms < 0) throw new Error(`nothing was ready ${timeout} ms after clicking ${selector}`);
  return ms;
}

const raterButton = `//button[@data-testid="rater"][span[normalize-space(.)="${rater}"]]`;

// A first start opens (and, for an older file, migrates) the project and fills the page cache,
// so the measured start below is a warm one.
const t0 = performance.now();
const warm = await startApp({ args: [project] });
await find(warm, raterButton, 600_000);
report('first start to the rater picker (migration, cold cache)', performance.now() - t0, 'ms', null);
await warm.deleteSession();

const browser = await startApp({ args: [project] });
try {
  const t1 = performance.now();
  await find(browser, raterButton, 600_000);
  report('start to the rater picker', performance.now() - t1, 'ms', null);

  report(`rater ${rater}'s queue interactive after picking the rater`, await timeClick(browser, raterButton, 'queue'), 'ms', 1500);
  const summary = await (await find(browser, '[data-testid="queue-summary"]')).getText();
  console.log(`scale: the queue says ${summary}`);

  // Search: type a word of the first task's title, a letter at a time; each keystroke is timed
  // to the frame that shows what matches it.
  const word = chosenWord ?? await browser.execute(() => {
    const title = document.querySelector('[data-testid="queue-item"] .sub')?.textContent ?? '';
    return title.split(/[^A-Za-z]+/).filter((w) => w.length >= 5).sort((a, b) => b.length - a.length)[0] ?? 'error';
  });
  const keystrokes = [];
  for (let i = 1; i <= word.length; i++) {
    keystrokes.push(
      await browser.executeAsync((typed, done) => {
        const input = document.querySelector('input[aria-label="Search tasks"]');
        const needle = typed.toLowerCase();
        const shows = () => {
          if (document.querySelector('nav.queue')?.getAttribute('aria-busy') !== 'false') return false;
          const items = [...document.querySelectorAll('[data-testid="queue-item"]')];
          return items.length === 0
            ? document.querySelector('nav.queue')?.textContent.includes('No task matches') === true
            : items.every((b) => b.textContent.toLowerCase().includes(needle));
        };
        const t0 = performance.now();
        input.value = typed;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        const poll = () => {
          if (shows()) requestAnimationFrame(() => done(performance.now() - t0));
          else if (performance.now() - t0 > 30_000) done(-1);
          else requestAnimationFrame(poll);
        };
        requestAnimationFrame(poll);
      }, word.slice(0, i)),
    );
  }
  if (keystrokes.some((ms) => ms < 0)) throw new Error(`a search for part of "${word}" never showed`);
  report(`search the queue per keystroke, median of ${keystrokes.length} ("${word}")`, median(keystrokes), 'ms', 100);
  console.log(`scale: keystrokes (ms): ${keystrokes.map((ms) => ms.toFixed(0)).join(', ')}`);

  await (await find(browser, '[data-testid="sign-out"]')).click();
  report('progress view interactive after picking the coordinator', await timeClick(browser, '//button[@data-testid="coordinator"]', 'progress'), 'ms', 2000);

  const pids = appProcesses(driver);
  for (const p of pids) {
    const comm = proc(p, 'comm')?.trim() ?? 'gone';
    console.log(`scale: ${comm} (${p}): PSS ${pssMb([p]).toFixed(1)} MB (largest: ${pssParts(p)})`);
  }
  report('memory after the queue and the progress view, PSS of app + WebKit', pssMb(pids), 'MB', 400);
  report('memory, RSS of app + WebKit (shared pages counted per process)', rssMb(pids), 'MB', null);
} finally {
  await browser.deleteSession();
}
