import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { find, openDemoAs, openDemoAsCoordinator, shot, signInAs, signOut, startApp, textOf, until } from './harness.mjs';

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'hostile-tasks.jsonl');

/** Calls a command the way the UI does; the import dialog is native and cannot be driven. */
async function invoke(browser, cmd, args) {
  return browser.executeAsync((cmd, args, done) => {
    const internals = window.__TAURI_INTERNALS__;
    if (cmd === 'import_paths') {
      const id = internals.transformCallback(() => {});
      args = { ...args, on_progress: `__CHANNEL__:${id}` };
    }
    internals.invoke(cmd, args).then((v) => done({ ok: v }), (e) => done({ err: e }));
  }, cmd, args);
}

test('issue text with scripts, handlers, javascript: links and SVG renders inert', async () => {
  const browser = await startApp();
  try {
    // The coordinator imports; a rater's session may not.
    await openDemoAsCoordinator(browser);
    const imported = await invoke(browser, 'import_paths', { paths: [fixture] });
    assert.equal(imported.err, undefined, JSON.stringify(imported.err));
    // Every rater of the demo (three) on every task: the hostile task is in Lena Vogt's queue.
    const assigned = await invoke(browser, 'assign_raters', { per_case: 3, seed: 0 });
    assert.equal(assigned.err, undefined, JSON.stringify(assigned.err));
    await signOut(browser);
    await signInAs(browser, 'Lena Vogt');
    const refused = await invoke(browser, 'import_paths', { paths: [fixture] });
    assert.equal(refused.err?.code, 'coordinator_only');
    const draft = await invoke(browser, 'save_draft', { req: { rater: 'Lena Vogt', instance_id: 'evil__payloads-1', values: {}, case_revision: null, reason: null } });
    assert.equal(draft.err, undefined, JSON.stringify(draft.err));
    await browser.refresh();
    await openDemoAs(browser, 'Lena Vogt');
    const item = await find(browser, '//button[@data-testid="queue-item"][contains(., "evil__payloads-1")]');
    await item.click();
    await until(browser, async () => (await textOf(browser, '[data-testid="task-id"]')) === 'evil__payloads-1', 'the hostile task did not open');
    const issue = await find(browser, '[data-testid="issue"]');
    assert.match(await issue.getText(), /Hostile issue text/);

    const found = await browser.execute(() => {
      const root = document.querySelector('[data-testid="issue"]');
      const all = [...root.querySelectorAll('*')];
      return {
        dangerous: root.querySelectorAll('script, svg, math, img, iframe, style, object, embed').length,
        handlers: all.flatMap((el) => [...el.attributes].map((a) => a.name)).filter((n) => n.startsWith('on') || n === 'style'),
        badLinks: [...root.querySelectorAll('a')].map((a) => a.getAttribute('href') ?? '').filter((h) => !/^(https?:|mailto:)/i.test(h) && h !== ''),
        rels: [...root.querySelectorAll('a[href]')].map((a) => a.getAttribute('rel')),
      };
    });
    assert.equal(found.dangerous, 0, 'no script, svg, math, img, iframe or style element survives');
    assert.deepEqual(found.handlers, [], 'no event handler or style attribute survives');
    assert.deepEqual(found.badLinks, [], 'no javascript: or other non-web link survives');
    assert.ok(found.rels.length > 0 && found.rels.every((r) => r === 'noopener noreferrer'));

    // Clicking the former javascript: link and hovering the former cover does nothing.
    const link = await browser.$('//*[@data-testid="issue"]//a[contains(., "a javascript: link")]');
    if (await link.isExisting()) await link.click();
    await browser.pause(300);
    assert.equal(await browser.execute(() => window.__pwned ?? null), null, 'no payload ran');

    // Nothing of the text vanished: the markup is shown as text, the paragraph after the MathML
    // mutation is still there, and a notice says what was shown as text.
    const text = await issue.getText();
    assert.match(text, /<script>window\.__pwned = 'script'<\/script>/);
    assert.match(text, /<math><mtext><table><mglyph><style><img src=x onerror="window\.__pwned='mxss'">/);
    assert.match(text, /A safe link stays a link\./);
    assert.match(await textOf(browser, '[data-testid="issue-notice"]'), /^\d+ HTML elements shown as text · 1 link shown as text/);
    await shot(browser, 'security-hostile-issue-inert');

    // The Source toggle shows the issue exactly as stored.
    const toggle = await find(browser, '[data-testid="issue-source-toggle"]');
    await toggle.click();
    const source = await find(browser, '[data-testid="issue-source"]');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    assert.match(await source.getText(), /^Hostile issue text: none of this may run\.\n\n<script>window\.__pwned = 'script'<\/script>/);
    await shot(browser, 'security-hostile-issue-source');
    await toggle.click();
    await find(browser, '[data-testid="issue"]');
    assert.equal(await browser.execute(() => window.__pwned ?? null), null, 'no payload ran');
  } finally {
    await browser.deleteSession();
  }
});
