import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { find, reopenDemo, shot, startApp, textOf, until } from './harness.mjs';

/** The app's data folder, made ready. */
function dataFolder() {
  const data = process.env.XDG_DATA_HOME;
  assert.ok(data, 'scripts/e2e.sh sets XDG_DATA_HOME');
  const folder = path.join(data, 'dev.verity.desktop');
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** A new project with one rater, made with the command line. */
function newProject() {
  const cli = process.env.VERITY_CLI;
  assert.ok(cli, 'scripts/e2e.sh passes VERITY_CLI');
  const project = path.join(mkdtempSync(path.join(tmpdir(), 'verity-open-')), 'named-panel.verity');
  execFileSync(cli, ['--project', project, 'init'], { encoding: 'utf8' });
  execFileSync(cli, ['--project', project, 'raters', 'add', 'zoe'], { encoding: 'utf8' });
  return project;
}

const recentFile = () => path.join(dataFolder(), 'recent-projects.json');
/** The recent list's rows as text, read one at a time: tauri-driver does not take concurrent
 * requests, and WebKit's driver leaves the text of a button laid out as a column out of getText. */
async function recentRows(browser) {
  const rows = [];
  for (const row of await browser.$$('[data-testid="recent-project"]')) rows.push(await row.getProperty('textContent'));
  return rows;
}

test('the project named on the command line opens at start, and the recent projects open, show what is missing and can be removed', async () => {
  const demo = reopenDemo();
  const named = newProject();
  const gone = path.join(tmpdir(), 'verity-no-such-folder', 'moved away.verity');
  const server = 'postgres://verity_panel_ana@db.example.org:5432/panel';
  writeFileSync(recentFile(), JSON.stringify({ projects: [demo, gone, server] }));

  const browser = await startApp({ args: [named] });
  try {
    await find(browser, '//h1[contains(., "Who is using Verity?")]', 60_000);
    assert.match(await textOf(browser, '[data-testid="project"]'), /^named-panel\.verity · /, 'the named project, not the last one');
    assert.match(await textOf(browser, '[data-testid="rater"]'), /zoe/);

    await (await find(browser, '[data-testid="other-project"]')).click();
    await find(browser, '[data-testid="recent-project"]');
    const rows = await recentRows(browser);
    assert.equal(rows.length, 4);
    assert.match(rows[0], /named-panel\.verity/, 'the project just opened comes first');
    assert.match(rows[1], /demo/);
    assert.match(rows[2], /moved away\.verity[\s\S]*missing/);
    assert.match(rows[3], new RegExp(server.replaceAll('.', '\\.')));
    const open = await browser.$$('[data-testid="recent-open"]');
    assert.equal(await open[2].isEnabled(), false, 'a missing file cannot be opened');
    await shot(browser, 'start-recent-projects');

    await (await browser.$$('[data-testid="recent-forget"]'))[2].click();
    await until(browser, async () => (await recentRows(browser)).length === 3, 'the missing project is removed');
    assert.ok(!(await recentRows(browser)).some((r) => r.includes('moved away')));
    assert.ok(!readFileSync(recentFile(), 'utf8').includes('moved away'), 'and forgotten on disk');

    // The demo project opens from the list and moves up.
    await (await browser.$$('[data-testid="recent-open"]'))[1].click();
    await until(browser, async () => /^demo/.test(await textOf(browser, '[data-testid="project"]')), 'the demo project opens');
    const stored = JSON.parse(readFileSync(recentFile(), 'utf8')).projects;
    assert.deepEqual(stored, [demo, named, server]);
  } finally {
    await browser.deleteSession();
  }
});

test('a project named on the command line that is not there is named on the start screen', async () => {
  reopenDemo();
  const missing = path.join(tmpdir(), 'verity-no-such-folder', 'typo.verity');
  const browser = await startApp({ args: [missing] });
  try {
    const error = await find(browser, '[data-testid="start-error"]', 60_000);
    assert.match(await error.getText(), /typo\.verity/);
    assert.equal(await textOf(browser, '[data-testid="project"]'), '', 'no project is open');
    assert.ok((await recentRows(browser)).length > 0, 'the recent projects are offered');
    await shot(browser, 'start-missing-project');
  } finally {
    await browser.deleteSession();
  }
});
