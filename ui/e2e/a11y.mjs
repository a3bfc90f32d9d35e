// The accessibility check of every screen the end-to-end tests visit: axe-core (from
// node_modules, injected into the real app's web view through WebDriver, no network) with the
// WCAG 2.0, 2.1 and 2.2 A and AA rules and axe's best practices in the light theme, and again in
// the dark one for the rules that colours decide (the themes differ in colours alone: app.css).
// A critical or serious violation fails the test, naming the rule and the elements. The tests
// call it where they already stand on a screen, so it costs one axe pass per screen and theme.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { shot } from './harness.mjs';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The rule sets checked, by axe's tags. */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
const FAILING = ['critical', 'serious'];

/** Runs axe on the page as it is, with every rule of AXE_TAGS or only those of them that colours
 * decide (axe's category `cat.color`); returns its critical and serious violations, shortened. */
async function violations(browser, coloursOnly) {
  if (!(await browser.execute(() => typeof window.axe === 'object'))) {
    await browser.execute(axeSource);
  }
  const result = await browser.executeAsync((tags, coloursOnly, failing, done) => {
    const colours = window.axe.getRules(tags).filter((r) => r.tags.includes('cat.color')).map((r) => r.ruleId);
    const runOnly = coloursOnly ? { type: 'rule', values: colours } : { type: 'tag', values: tags };
    window.axe
      .run(document, { runOnly, resultTypes: ['violations'] })
      .then(
        (r) => done(r.violations.filter((v) => failing.includes(v.impact)).map((v) => ({
          rule: v.id,
          impact: v.impact,
          help: v.help,
          nodes: v.nodes.slice(0, 6).map((n) => `${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`),
          more: Math.max(0, v.nodes.length - 6),
        }))),
        (e) => done({ error: String(e) }),
      );
  }, AXE_TAGS, coloursOnly, FAILING);
  if (result && !Array.isArray(result)) throw new Error(`axe could not run: ${result.error}`);
  return result;
}

/**
 * Checks the screen shown, named `screen` in the failure, in the light and the dark theme (the
 * theme the app shows is put back after). With `screenshot`, the dark theme's screenshot is
 * saved as `<screenshot>-dark`.
 */
export async function checkAccessibility(browser, screen, { screenshot } = {}) {
  await browser.setTimeout({ script: 120_000 });
  const before = await browser.execute(() => document.documentElement.dataset.theme ?? null);
  const found = {};
  try {
    for (const theme of ['light', 'dark']) {
      await browser.execute((t) => { document.documentElement.dataset.theme = t; }, theme);
      const v = await violations(browser, theme === 'dark');
      if (v.length > 0) found[theme] = v;
      if (theme === 'dark' && screenshot) await shot(browser, `${screenshot}-dark`);
    }
  } finally {
    await browser.execute((t) => {
      if (t === null) delete document.documentElement.dataset.theme;
      else document.documentElement.dataset.theme = t;
    }, before);
  }
  if (Object.keys(found).length > 0) {
    assert.fail(`axe finds critical or serious accessibility violations on ${screen}:\n${JSON.stringify(found, null, 2)}`);
  }
}
