//! The SWE-bench family (SWE-bench, Lite, Verified) as the Hugging Face datasets export them:
//! `instance_id, repo, base_commit, problem_statement, hints_text, patch, test_patch,
//! FAIL_TO_PASS, PASS_TO_PASS, version, created_at, environment_setup_commit`. The test lists
//! may be JSON arrays or strings holding them. A row that also carries SWE-bench Pro's
//! `requirements` and `interface` keeps them as the texts raters read, whichever shape the file
//! was detected as; other unknown fields are kept under `extra`.

use std::path::Path;

use serde_json::{Map, Value};

use super::{ImportError, Row, check_commit};
use crate::case::CaseRecord;

/// Turns one dataset row into a record.
pub fn record_from_row(
    path: &Path,
    at: &str,
    fields: Map<String, Value>,
) -> Result<CaseRecord, ImportError> {
    let mut row = Row::new(path, at, fields);
    let instance_id = row.required("instance_id")?;
    let repo = row.required("repo")?;
    let base_commit = row.required("base_commit")?;
    check_commit(&row, "base_commit", &base_commit)?;
    let problem_statement = row.required("problem_statement")?;
    let gold_patch = row.required("patch")?;
    let test_patch = row.required("test_patch")?;
    let hints_text = row.optional("hints_text")?;
    let requirements = row.optional("requirements")?;
    let interface = row.optional("interface")?;
    let fail_to_pass = row.test_list("FAIL_TO_PASS")?;
    let pass_to_pass = row.test_list("PASS_TO_PASS")?;
    Ok(CaseRecord {
        instance_id,
        repo: Some(repo),
        base_commit: Some(base_commit),
        problem_statement: Some(problem_statement),
        hints_text,
        requirements,
        interface,
        gold_patch: Some(gold_patch),
        test_patch: Some(test_patch),
        fail_to_pass,
        pass_to_pass,
        audit: None,
        extra: row.rest(),
    })
}
