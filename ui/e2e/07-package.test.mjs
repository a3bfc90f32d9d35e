import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { find, shot, startApp, textOf } from './harness.mjs';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../annotations/tests/fixtures');

/** A project made with the command line, and ana's package of it; returns the package. */
function anasPackage() {
  const cli = process.env.VERITY_CLI;
  assert.ok(cli, 'scripts/e2e.sh passes VERITY_CLI');
  const dir = mkdtempSync(path.join(tmpdir(), 'verity-package-'));
  const project = path.join(dir, 'panel.verity');
  const verity = (...args) => execFileSync(cli, ['--project', project, ...args], { encoding: 'utf8' });
  verity('init');
  verity('import', path.join(fixtures, 'swebench.jsonl'));
  verity('raters', 'add', 'ana');
  verity('raters', 'add', 'bo');
  verity('assign', '--per-case', '1');
  const out = path.join(dir, 'ana.verity');
  verity('package', '--rater', 'ana', '--out', out);
  return out;
}

test('a rater’s package opens signed in as its rater, without the picker', async () => {
  const data = process.env.XDG_DATA_HOME;
  assert.ok(data, 'scripts/e2e.sh sets XDG_DATA_HOME');
  // The app reopens the project open when it last closed: make that ana's package.
  const folder = path.join(data, 'dev.verity.desktop');
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'last-project'), anasPackage());
  const browser = await startApp();
  try {
    await find(browser, '[data-testid="task-id"]', 60_000);
    assert.equal(await textOf(browser, '[data-testid="current-role"]'), 'ana');
    assert.equal(await textOf(browser, '[data-testid="bound"]'), 'ana’s package');
    assert.match(await textOf(browser, 'header'), /ana\.verity/);
    for (const absent of ['sign-out', 'coordinator', 'rater']) {
      assert.equal(await (await browser.$(`[data-testid="${absent}"]`)).isExisting(), false, `no ${absent} button`);
    }
    assert.equal((await browser.$$('[data-testid="queue-item"]')).length, 1, 'ana’s one task');
    await shot(browser, 'rater-package');
  } finally {
    await browser.deleteSession();
  }
});
