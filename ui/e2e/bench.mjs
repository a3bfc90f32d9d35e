// Measures the desktop app for bench/desktop.sh (not a test: no assertions on time).
import path from 'node:path';
import { find, openDemoAs, openDemoAsCoordinator, signOut, startApp } from './harness.mjs';
import { appProcesses, proc, pssMb, pssParts, rssMb } from './memory.mjs';

const dir = process.env.VERITY_BENCH_DIR;

async function invoke(browser, cmd, args) {
  const r = await browser.executeAsync((cmd, args, done) => {
    const internals = window.__TAURI_INTERNALS__;
    if (cmd === 'import_paths') args = { ...args, on_progress: `__CHANNEL__:${internals.transformCallback(() => {})}` };
    internals.invoke(cmd, args).then((v) => done({ ok: v }), (e) => done({ err: e }));
  }, cmd, args);
  if (r.err) throw new Error(`${cmd}: ${JSON.stringify(r.err)}`);
  return r.ok;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];

// 1. Start to interactive queue (median of 3 starts of the app, each through WebDriver's new
//    session; the first creates the demo project): the project opens by itself, the rater is
//    picked, the queue shows.
const starts = [];
const toWho = [];
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  const browser = await startApp();
  await find(browser, '[data-testid="rater"]', 60_000);
  toWho.push(performance.now() - t0);
  await openDemoAs(browser, 'Amara Nwosu');
  await find(browser, '[data-testid="queue-item"]');
  starts.push(performance.now() - t0);
  await browser.deleteSession();
}
rows.push(['app start to the open demo project (ms, median of 3)', median(toWho), null]);
rows.push(['app start to interactive queue, rater picked (ms, median of 3)', median(starts), 2000]);

const browser = await startApp();
try {
  // 2. A task with 5,000 patch lines, imported by the coordinator and given to every rater of
  //    the demo (three), then drafted by the rater so that the queue opens on it.
  await openDemoAsCoordinator(browser);
  await invoke(browser, 'import_paths', { paths: [path.join(dir, 'big.jsonl')] });
  await invoke(browser, 'assign_raters', { per_case: 3, seed: 0 });
  await signOut(browser);
  await openDemoAs(browser, 'Amara Nwosu');
  await invoke(browser, 'save_draft', { req: { rater: 'Amara Nwosu', instance_id: 'bench__big-0', values: {}, case_revision: null, reason: null } });
  const opens = [];
  const diffs = [];
  const builds = [];
  let built = 0;
  for (let i = 0; i < 5; i++) {
    await browser.refresh();
    await openDemoAs(browser, 'Amara Nwosu');
    // The queue opens the task in progress (bench__big-0) first: move to another one, so the
    // timed click really opens the big task.
    await (await find(browser, '//button[@data-testid="queue-item"][contains(., "demo__tinylib-1")]')).click();
    await browser.waitUntil(async () => (await (await browser.$('[data-testid="task-id"]')).getText()) === 'demo__tinylib-1');
    // Each time runs to the frame after the one that first holds the content: that frame's
    // callback runs once the content's style, layout and paint are done.
    const ms = await browser.executeAsync((done) => {
      const item = [...document.querySelectorAll('[data-testid="queue-item"]')].find((b) => b.textContent.includes('bench__big-0'));
      const painted = (ready, t0, then) => {
        const poll = () => {
          if (ready()) requestAnimationFrame(() => then(performance.now() - t0));
          else requestAnimationFrame(poll);
        };
        poll();
      };
      const t0 = performance.now();
      item.click();
      painted(() => document.querySelector('[data-testid="task-id"]')?.textContent === 'bench__big-0' && document.querySelector('[data-testid="issue"]'), t0, (opened) => {
        const tab = [...document.querySelectorAll('[role="tab"]')].find((b) => b.textContent.startsWith('Gold patch'));
        const t1 = performance.now();
        tab.click();
        const lines = () => document.querySelectorAll('[data-testid="diff"] tr.line').length;
        painted(() => lines() > 0, t1, (first) => {
          // The diff builds the rest of its first pages over the following frames.
          let last = -1;
          const settle = () => {
            const n = lines();
            if (n === last) done([opened, first, performance.now() - t1, n]);
            else {
              last = n;
              requestAnimationFrame(settle);
            }
          };
          settle();
        });
      });
    });
    opens.push(ms[0]);
    diffs.push(ms[1]);
    builds.push(ms[2]);
    built = ms[3];
  }
  rows.push(['open task with 5,000 patch lines, painted (ms, median of 5)', median(opens), 300]);
  rows.push(['then show its gold patch diff, first rows painted (ms, median of 5)', median(diffs), 300]);
  rows.push([`then all ${built} rows of its open files' first pages built (ms, median of 5)`, median(builds), null]);

  // 3. Keystroke to saved: the save_draft round trip the autosave makes, from the page, on the
  //    task in progress (the demo's own tasks are submitted).
  const trips = await browser.executeAsync((done) => {
    const internals = window.__TAURI_INTERNALS__;
    const out = [];
    const text = 'x'.repeat(120);
    const step = (i) => {
      if (i >= 40) return done(out);
      const t0 = performance.now();
      internals.invoke('save_draft', { req: { rater: 'Amara Nwosu', instance_id: 'bench__big-0', values: { underspecified_notes: text.slice(0, 20 + i) }, case_revision: null, reason: null } })
        .then(() => { out.push(performance.now() - t0); step(i + 1); }, (e) => done({ err: e }));
    };
    step(0);
  });
  if (!Array.isArray(trips)) throw new Error(JSON.stringify(trips));
  rows.push(['keystroke-to-saved round trip (ms, median of 40)', median(trips), 50]);

  // 4. The coordinator imports 2,000 more tasks and assigns two raters to each.
  await signOut(browser);
  await openDemoAsCoordinator(browser);
  await invoke(browser, 'import_paths', { paths: [path.join(dir, 'many.jsonl')] });
  await invoke(browser, 'assign_raters', { per_case: 2, seed: 1 });
} finally {
  await browser.deleteSession();
}

// 5. Memory with those tasks in a new app: the coordinator's progress view (a page of tasks at a
//    time), then a rater's queue of about 1,300 tasks with a task open. The RSS of the app and
//    its WebKit processes is summed.
const again = await startApp();
try {
  await openDemoAsCoordinator(again);
  const cases = await invoke(again, 'progress_page', { query: { offset: 0, limit: 1, rater: null, status: null, repo: null, search: '' } });
  await find(again, '[data-testid="case-progress"] [role="cell"]', 60_000);
  await signOut(again);
  await openDemoAs(again, 'Amara Nwosu');
  const queued = (await (await find(again, '[data-testid="queue-summary"]')).getText()).split(' / ')[1].replace(' done', '');
  const driver = Number(process.env.VERITY_DRIVER_PID);
  const pids = appProcesses(driver);
  for (const p of pids) {
    const comm = proc(p, 'comm')?.trim() ?? 'gone';
    console.log(`bench: ${comm} (${p}): RSS ${rssMb([p]).toFixed(1)} MB, PSS ${pssMb([p]).toFixed(1)} MB (largest: ${pssParts(p)})`);
  }
  const what = `${cases.total} tasks (progress view, then a queue of ${queued})`;
  rows.push([`memory with ${what}, PSS of app + WebKit (MB)`, pssMb(pids), 400]);
  rows.push([`memory with ${what}, RSS of app + WebKit, shared pages counted per process (MB)`, rssMb(pids), null]);
} finally {
  await again.deleteSession();
}

console.log('\n| measure | measured | target | ratio (measured / target) |');
console.log('|---|---:|---:|---:|');
for (const [name, value, target] of rows) {
  console.log(`| ${name} | ${value.toFixed(1)} | ${target ?? '–'} | ${target ? (value / target).toFixed(2) : '–'} |`);
}
