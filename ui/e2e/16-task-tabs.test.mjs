import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { find, shot, signInAs, startApp, textOf, until } from './harness.mjs';

/** `n` lines of a file's hunk, each starting with `sign`. */
const lines = (sign, n, word) => Array.from({ length: n }, (_, i) => `${sign}${word} ${i}`).join('\n');

/** A patch of one file with `added` and `removed` lines. */
function patch(file, added, removed) {
  return `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1,${removed} +1,${added} @@\n${lines('-', removed, 'old')}\n${lines('+', added, 'new')}\n`;
}

/**
 * A project holding one task shaped as every SWE-bench Pro task is (requirements and an
 * interface beside the issue, so seven tabs), with tab labels as wide as the widest of the 731
 * public tasks give (gold patch +538 −499, test patch +3,302 −3,196, 114 tests), and a rater
 * assigned to it; the app opens it next.
 */
function proProject() {
  const cli = process.env.VERITY_CLI;
  const data = process.env.XDG_DATA_HOME;
  assert.ok(cli && data, 'scripts/e2e.sh passes VERITY_CLI and XDG_DATA_HOME');
  const dir = mkdtempSync(path.join(tmpdir(), 'verity-tabs-'));
  const id = 'instance_flipt-io__flipt-f1bc91a1b999656dbdb2495ccb57bf2105b84920';
  const tests = Array.from({ length: 114 }, (_, i) => `internal/server/evaluator_test.go | TestEvaluate${i}`);
  const row = {
    instance_id: id,
    repo: 'flipt-io/flipt',
    base_commit: 'f1bc91a1b999656dbdb2495ccb57bf2105b84920',
    problem_statement: '# Evaluation ignores the segment’s match type\n\nA flag whose segment matches ANY of its constraints is evaluated as if it matched ALL of them.',
    requirements: '- `Evaluate` must honour a segment’s `match_type`.\n- A segment with `ANY` matches when one constraint holds.',
    interface: 'No new interfaces are introduced.',
    fail_to_pass: tests.slice(0, 14),
    pass_to_pass: tests.slice(14),
    selected_test_files: ['internal/server/evaluator_test.go'],
    image_name: 'jefzda/sweap-images:flipt',
    patch: patch('internal/server/evaluator.go', 538, 499),
    test_patch: patch('internal/server/evaluator_test.go', 3302, 3196),
  };
  const rows = path.join(dir, 'pro.jsonl');
  writeFileSync(rows, `${JSON.stringify(row)}\n`);
  const project = path.join(dir, 'pro-tabs.verity');
  const verity = (...args) => execFileSync(cli, ['--project', project, ...args], { encoding: 'utf8' });
  verity('init');
  verity('import', rows);
  verity('raters', 'add', 'Ana');
  verity('assign', '--per-case', '1');
  const folder = path.join(data, 'dev.verity.desktop');
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'last-project'), project);
  return id;
}

/**
 * Each tab's geometry in CSS pixels, and what a pointer at its centre and just inside each
 * corner would hit: the tab itself (or text inside it), never a scroll bar or another control.
 */
const tabGeometry = (browser) =>
  browser.execute(() => {
    const row = document.querySelector('[role="tablist"]');
    const box = row.getBoundingClientRect();
    return [...row.querySelectorAll('[role="tab"]')].map((tab) => {
      const r = tab.getBoundingClientRect();
      const points = [
        [r.left + r.width / 2, r.top + r.height / 2],
        [r.left + 2, r.top + 2],
        [r.right - 2, r.top + 2],
        [r.left + 2, r.bottom - 2],
        [r.right - 2, r.bottom - 2],
      ];
      return {
        id: tab.id,
        label: tab.textContent.trim(),
        width: r.width,
        height: r.height,
        inRow: r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5,
        inWindow: r.left >= 0 && r.top >= 0 && r.right <= window.innerWidth && r.bottom <= window.innerHeight,
        hit: points.every(([x, y]) => tab.contains(document.elementFromPoint(x, y))),
        scrolls: row.scrollWidth > row.clientWidth || row.scrollHeight > row.clientHeight,
      };
    });
  });

/**
 * Clicks the element `#id` with the mouse: moves the pointer to its centre, presses and
 * releases. WebKit's driver takes the pointer's place in the window's own pixels, which the
 * zoom makes larger than the page's CSS pixels (so its element click misses on a zoomed page):
 * the centre is scaled by the zoom.
 */
async function pointerClick(browser, id) {
  const { x, y, zoom } = await browser.execute((target) => {
    const r = document.getElementById(target).getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2, zoom: window.outerWidth / window.innerWidth };
  }, id);
  await browser.performActions([
    {
      type: 'pointer',
      id: 'mouse',
      parameters: { pointerType: 'mouse' },
      actions: [
        { type: 'pointerMove', origin: 'viewport', x: Math.round(x * zoom), y: Math.round(y * zoom) },
        { type: 'pointerDown', button: 0 },
        { type: 'pointerUp', button: 0 },
      ],
    },
  ]);
  await browser.releaseActions();
}

/** The window's size in CSS pixels. */
const viewport = (browser) => browser.execute(() => ({ width: window.innerWidth, height: window.innerHeight }));

/**
 * Clicks every tab with the pointer, in the light and the dark theme, and checks that each is
 * whole, inside the window, at least 24 px each way, that the pointer lands on it, and that the
 * tab it selects shows its panel; then moves the focus across the row by keyboard and checks no
 * focused tab is hidden. `setting` names the screenshots.
 */
async function clickEveryTab(browser, setting) {
  for (const theme of ['light', 'dark']) {
    await browser.execute((t) => { document.documentElement.dataset.theme = t; }, theme);
    const tabs = await tabGeometry(browser);
    assert.deepEqual(
      tabs.map((t) => t.id),
      ['tab-issue', 'tab-requirements', 'tab-interface', 'tab-gold', 'tab-test', 'tab-tests', 'tab-evidence'],
      `${setting}: the seven tabs of a Pro task`,
    );
    for (const t of tabs) {
      assert.ok(!t.scrolls, `${setting}, ${theme}: the tab row scrolls: ${JSON.stringify(t)}`);
      assert.ok(t.inRow && t.inWindow, `${setting}, ${theme}: the tab ${t.label} is cut: ${JSON.stringify(t)}`);
      assert.ok(t.width >= 24 && t.height >= 24, `${setting}, ${theme}: the tab ${t.label} is smaller than 24 px: ${JSON.stringify(t)}`);
      assert.ok(t.hit, `${setting}, ${theme}: a pointer on the tab ${t.label} lands elsewhere: ${JSON.stringify(t)}`);
    }
    // Last to first, so each click changes the tab shown.
    for (const t of [...tabs].reverse()) {
      await pointerClick(browser, t.id);
      await until(
        browser,
        async () => (await (await browser.$(`#${t.id}`)).getAttribute('aria-selected')) === 'true',
        `${setting}, ${theme}: a click on ${t.label} did not select it`,
      );
      assert.equal(await browser.execute(() => document.getElementById('task-panel').getAttribute('aria-labelledby')), t.id);
    }
    await shot(browser, `task-tabs-${setting}-${theme}`);
    // By keyboard: each tab focused in turn is in the window and not covered.
    await browser.execute(() => document.querySelector('[role="tab"][aria-selected="true"]').focus());
    for (let i = 0; i < tabs.length; i += 1) {
      const focused = await browser.execute(() => {
        const el = document.activeElement;
        const r = el.getBoundingClientRect();
        const seen = el.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
        return { id: el.id, seen, inWindow: r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth };
      });
      assert.ok(focused.seen && focused.inWindow, `${setting}, ${theme}: the focused tab ${focused.id} is hidden: ${JSON.stringify(focused)}`);
      await browser.keys(['ArrowRight']);
    }
  }
  await browser.execute(() => { delete document.documentElement.dataset.theme; });
}

test('every tab of a Pro-shaped task is whole and takes the pointer at 1280×800, the narrowest window and 200%, in both themes', async () => {
  const id = proProject();
  const browser = await startApp();
  try {
    await signInAs(browser, 'Ana');
    await until(browser, async () => (await textOf(browser, '[data-testid="task-id"]')) === id, 'the Pro task did not open');
    let size = await viewport(browser);
    assert.deepEqual(size, { width: 1280, height: 800 }, 'the app starts at 1280×800');
    await clickEveryTab(browser, '1280x800');

    // The narrowest window the app allows (tauri.conf.json's minWidth and minHeight).
    await browser.setWindowSize(800, 500);
    await until(browser, async () => (await viewport(browser)).width < 1280, 'the window did not shrink');
    size = await viewport(browser);
    assert.deepEqual(size, { width: 1024, height: 640 }, 'the window shrinks no further than its minimum');
    await clickEveryTab(browser, 'narrowest');
    await browser.setWindowSize(1280, 800);
    await until(browser, async () => (await viewport(browser)).width === 1280, 'the window did not grow back');

    // At 200% (Ctrl+=, as a user zooms): 640×400 CSS pixels.
    for (let i = 0; i < 5; i += 1) await browser.keys(['Control', '=']);
    try {
      await until(browser, async () => (await viewport(browser)).width <= 660, 'Ctrl+= did not zoom to 200%');
      await (await find(browser, '#tab-issue')).scrollIntoView({ block: 'center' });
      await clickEveryTab(browser, 'zoom-200');
    } finally {
      // The zoom is kept for the next start: put it back.
      await browser.keys(['Control', '0']);
      await until(browser, async () => (await viewport(browser)).width === 1280, 'Ctrl+0 did not reset the zoom');
    }
  } finally {
    await browser.deleteSession();
  }
});
