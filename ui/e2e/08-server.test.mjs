import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { find, startApp, textOf, until } from './harness.mjs';
import { checkAccessibility } from './a11y.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = path.join(root, 'annotations/tests/fixtures');

/** A throwaway PostgreSQL server of this test's own (scripts/postgres.sh), holding a project
 * with two tasks, the raters ana and bo on both, and ana's own login. */
const server = {};

before(() => {
  const cli = process.env.VERITY_CLI;
  assert.ok(cli, 'scripts/e2e.sh passes VERITY_CLI');
  // As root the server runs as nobody, who must reach the folder: /tmp is open to all.
  server.dir = mkdtempSync(path.join('/tmp', 'verity-e2e-server-'));
  execFileSync('bash', [path.join(root, 'scripts/postgres.sh'), 'start', server.dir], { stdio: 'inherit' });
  const port = readFileSync(path.join(server.dir, 'port'), 'utf8').trim();
  const bin = /PG_BIN=(.*)/.exec(readFileSync(path.join(server.dir, 'env'), 'utf8'))[1];
  server.password = readFileSync(path.join(server.dir, 'superuser-password'), 'utf8').trim();
  // The command line finds the superuser's password in the server's password file; the app
  // is never told where that file is, so it must ask.
  const env = { ...process.env, PGPASSFILE: path.join(server.dir, 'pgpass') };
  execFileSync(path.join(bin, 'psql'), ['-h', '127.0.0.1', '-p', port, '-U', 'verity', '-d', 'postgres', '-qc', 'CREATE DATABASE panel'], { env });
  server.coordinator = `postgres://verity@127.0.0.1:${port}/panel`;
  const verity = (...args) => execFileSync(cli, ['--project', server.coordinator, ...args], { encoding: 'utf8', env });
  verity('init');
  verity('import', path.join(fixtures, 'swebench.jsonl'));
  verity('raters', 'add', 'ana');
  verity('raters', 'add', 'bo');
  verity('assign', '--per-case', '2');
  const grant = JSON.parse(verity('panel', 'grant', 'ana', '--json'));
  server.ana = { url: `postgres://${grant.role}@127.0.0.1:${port}/panel`, password: grant.password };
  server.submitAsAna = (task) => {
    const answer = path.join(mkdtempSync(path.join(tmpdir(), 'verity-answer-')), 'a.json');
    writeFileSync(answer, JSON.stringify({
      underspecified: 1,
      underspecified_notes: 'The issue names div(1, 0) and asks for a clear error, but never says which exception type or message is expected.',
      false_negative: 2,
      false_negative_notes: "The test pins the exact message 'cannot divide by zero', which the issue never states; other wordings would fail it.",
      difficulty: '<15 min fix',
      difficulty_notes: 'One guard clause.',
      other_major_issues: 0,
      annotator_confidence: 4,
    }));
    execFileSync(cli, ['--project', server.ana.url, 'answer', '--rater', 'ana', '--case', task, '--file', answer, '--submit'], {
      env: { ...process.env, PGPASSWORD: server.ana.password },
    });
  };
});

after(() => {
  if (server.dir) execFileSync('bash', [path.join(root, 'scripts/postgres.sh'), 'stop', server.dir], { stdio: 'inherit' });
});

/** Fills the "Open a panel server" dialog in and connects. */
async function connect(browser, url, password) {
  const address = await find(browser, '[data-testid="server-url"]');
  await address.clearValue();
  await address.setValue(url);
  const field = await find(browser, '[data-testid="server-password"]');
  await field.clearValue();
  await field.setValue(password);
  await (await find(browser, '[data-testid="server-connect"]')).click();
}

/** The app's last-project file. */
function lastProject() {
  const data = process.env.XDG_DATA_HOME;
  assert.ok(data, 'scripts/e2e.sh sets XDG_DATA_HOME');
  return readFileSync(path.join(data, 'dev.verity.desktop', 'last-project'), 'utf8');
}

test('the coordinator opens a panel server by its address and password, and sees a rater’s submission live', async () => {
  const browser = await startApp();
  try {
    await (await find(browser, '[data-testid="other-project"]', 60_000)).click();
    await (await find(browser, '[data-testid="open-server"]')).click();
    await connect(browser, server.coordinator, 'not the password');
    const refused = await find(browser, '[data-testid="server-error"]', 30_000);
    assert.match(await refused.getText(), /password authentication failed for user "verity"/);
    assert.ok(await (await browser.$('[data-testid="server-dialog"]')).isExisting(), 'the dialog stays open');
    await checkAccessibility(browser, 'the panel server dialog');

    await connect(browser, server.coordinator, server.password);
    await (await find(browser, '[data-testid="coordinator"]', 30_000)).click();
    assert.equal(await textOf(browser, '[data-testid="project"]'), `${server.coordinator} · SWE-bench Annotation Instructions`);
    const progress = '[data-testid="case-progress"]';
    await until(browser, async () => (await textOf(browser, progress)).includes('acme__calc-101'), 'no progress table');
    assert.doesNotMatch(await textOf(browser, progress), /done/);
    assert.equal(lastProject(), server.coordinator, 'the address alone is remembered');

    // Another session submits: the server tells the app, and the table follows without Refresh.
    server.submitAsAna('acme__calc-101');
    await until(browser, async () => /done/.test(await textOf(browser, progress)), 'the progress view did not follow the submission', 10_000);
  } finally {
    await browser.deleteSession().catch(() => {});
  }
});

test('at start the app asks for the last server’s password, and a rater’s login signs its rater in', async () => {
  const browser = await startApp();
  try {
    const address = await find(browser, '[data-testid="server-url"]', 60_000);
    assert.equal(await address.getValue(), server.coordinator);
    assert.equal(await (await browser.$('[data-testid="server-error"]')).isExisting(), false, 'the quiet try is not reported');

    await connect(browser, server.ana.url, server.ana.password);
    await find(browser, '[data-testid="task-id"]', 30_000);
    assert.equal(await textOf(browser, '[data-testid="current-role"]'), 'ana');
    assert.equal(await textOf(browser, '[data-testid="bound"]'), 'ana’s login');
    for (const absent of ['sign-out', 'coordinator', 'rater']) {
      assert.equal(await (await browser.$(`[data-testid="${absent}"]`)).isExisting(), false, `no ${absent} button`);
    }
    assert.equal(lastProject(), server.ana.url);
  } finally {
    await browser.deleteSession().catch(() => {});
  }
});
