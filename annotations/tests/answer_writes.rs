//! How an answer is written: the statements an autosave runs, counted by the store on a real
//! project file and on a server, held to their number so that a query added to the hot path
//! fails here.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use annotations::ops::{self, Project};
use verity_testkit::fixture_path;
use verity_testkit::project::{self, T0, at};

const ONE: &str = "acme__calc-101";
const TWO: &str = "acme__calc-102";

/// The SWE-bench fixture's two tasks in `p`, both assigned to ana.
fn ana_on_two_tasks(p: &mut Project) {
    project::import(p, &[fixture_path("swebench.jsonl")]);
    ops::add_rater(p, "ana", T0).unwrap();
    project::assign_tasks(p, &["ana"], &[ONE, TWO]);
}

/// The statements `write` runs on `p`, counted by its store.
fn statements(p: &mut Project, write: impl FnOnce(&mut Project)) -> u64 {
    let count = p.count_statements().unwrap();
    write(p);
    count.get()
}

/// The statements of ana's autosave on `case` after her first (which finds what a session
/// asks once), and of her submission after it.
fn autosave_and_submit(p: &mut Project, case: &str) -> (u64, u64) {
    p.act_as(project::rater("ana")).unwrap();
    ops::save_draft(p, &project::answer("ana", case, 0), at(1)).unwrap();
    let draft = statements(p, |p| {
        ops::save_draft(p, &project::answer("ana", case, 1), at(2)).unwrap();
    });
    let submit = statements(p, |p| {
        ops::submit_answer(p, &project::answer("ana", case, 2), at(3)).unwrap();
    });
    (draft, submit)
}

#[test]
fn an_autosave_on_a_project_file_runs_its_statements_and_no_more() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = project::init(&dir.path().join("p.verity"), "swe-bench-verified");
    ana_on_two_tasks(&mut p);
    let (draft, submit) = autosave_and_submit(&mut p, ONE);
    assert_eq!((draft, submit), (6, 6));
}

#[test]
fn an_autosave_on_a_server_runs_its_statements_and_no_more() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    // The coordinator's login, acting as ana.
    let (_, mut p) = db.coordinator_project("coordinator-pw", "swe-bench-verified");
    ana_on_two_tasks(&mut p);
    let login = ops::panel_grant(&mut p, "ana", T0).unwrap();
    let (draft, submit) = autosave_and_submit(&mut p, ONE);
    // ana's own login, which writes through the server's checked function.
    let mut own =
        ops::open_project_with_password(Path::new(&db.url_as(&login.role)), Some(&login.password))
            .unwrap();
    let (own_draft, own_submit) = autosave_and_submit(&mut own, TWO);
    assert_eq!((draft, submit, own_draft, own_submit), (7, 7, 7, 7));
}
