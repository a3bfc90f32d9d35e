//! Times a rater's autosaves on a project file: N drafts of one answer (1,000 unless given),
//! each a save as the app makes it half a second after the last keystroke, with the statements
//! each runs. Usage: autosave_speed [N]  ->  prints "total_ms ms_per_save statements_per_save".

use std::time::Instant;

use annotations::ops;
use verity_testkit::fixture_path;
use verity_testkit::project::{self, T0, at};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let saves: u32 = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 1000,
    };
    let dir = tempfile::tempdir()?;
    let mut p = project::init(&dir.path().join("p.verity"), "swe-bench-verified");
    project::import(&mut p, &[fixture_path("swebench.jsonl")]);
    ops::add_rater(&mut p, "ana", T0)?;
    project::assign_tasks(&mut p, &["ana"], &["acme__calc-101"]);
    p.act_as(project::rater("ana"))?;
    let count = p.count_statements()?;
    let started = Instant::now();
    for i in 0..saves {
        let draft = project::answer("ana", "acme__calc-101", i64::from(i % 4));
        ops::save_draft(&mut p, &draft, at(i64::from(i)))?;
    }
    let total = started.elapsed().as_secs_f64() * 1000.0;
    let each = f64::from(saves.max(1));
    println!(
        "{total:.1} {:.3} {}",
        total / each,
        count.get() as f64 / each
    );
    Ok(())
}
