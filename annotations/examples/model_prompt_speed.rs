//! Times building a model rater's prompt for a task whose gold patch has 5,000 lines (the
//! target: under 20 ms). Usage: model_prompt_speed  ->  prints "median_ms bytes".

use std::time::Instant;

use annotations::ops::{CaseDetail, PromptTemplate, Questionnaire, build_prompt};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut patch = String::from(
        "diff --git a/src/big.py b/src/big.py\n--- a/src/big.py\n+++ b/src/big.py\n@@ -1,0 +1,5000 @@\n",
    );
    for i in 0..5000 {
        patch.push_str(&format!(
            "+def function_{i}(value):  # computes the {i}th step of the pipeline\n"
        ));
    }
    let case = CaseDetail {
        instance_id: "acme__big-1".into(),
        repo: "acme/big".into(),
        base_commit: Some("a".repeat(40)),
        revision: 1,
        title: "A large change".into(),
        problem_statement: "The pipeline has no step functions.\n\nAdd them.".repeat(20),
        hints_text: String::new(),
        gold_patch: patch.clone(),
        test_patch: patch.replace("src/big.py", "tests/test_big.py"),
        fail_to_pass: (0..50)
            .map(|i| format!("tests/test_big.py::test_{i}"))
            .collect(),
        pass_to_pass: (0..500)
            .map(|i| format!("tests/test_big.py::test_keep_{i}"))
            .collect(),
        pr_url: Some("https://github.com/acme/big/pull/1".into()),
        has_materials: true,
        ..CaseDetail::default()
    };
    let questionnaire = Questionnaire::builtin("swe-bench-verified")?;
    let template = PromptTemplate::builtin("model-rater")?;
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..21 {
        let started = Instant::now();
        let request = build_prompt(&template, &questionnaire, &case, None);
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        bytes = request.system.len() + request.user.len();
    }
    times.sort_by(f64::total_cmp);
    println!("{:.3} {bytes}", times[times.len() / 2]);
    Ok(())
}
