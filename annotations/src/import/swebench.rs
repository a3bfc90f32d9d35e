//! The SWE-bench family (SWE-bench, Lite, Verified) as the Hugging Face datasets export them:
//! `instance_id, repo, base_commit, problem_statement, hints_text, patch, test_patch,
//! FAIL_TO_PASS, PASS_TO_PASS, version, created_at, environment_setup_commit`. The test lists
//! may be JSON arrays or strings holding them. A row that also carries SWE-bench Pro's
//! `requirements` and `interface` keeps them as the texts raters read, whichever shape the file
//! was detected as; other unknown fields are kept under `extra`. SWE-bench Pro's rows are read
//! here too, with [`Family::Pro`].

use std::path::Path;

use serde_json::{Map, Value};

use super::pro::decode_text;
use super::{ImportError, Row, check_commit};
use verity_task::case::CaseRecord;

/// Which member of the family a row comes from: SWE-bench Pro stores some texts JSON-encoded
/// and may spell the test lists in lower case (`fail_to_pass`, `pass_to_pass`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// SWE-bench, Lite, Verified.
    SweBench,
    /// SWE-bench Pro.
    Pro,
}

/// Turns one dataset row into a record. A row with several bad fields names the first in
/// this order: `instance_id`, `repo`, `base_commit`, `problem_statement`, `patch`,
/// `test_patch`, `hints_text`, `requirements`, `interface`, the test lists.
pub fn record_from_row(
    path: &Path,
    at: &str,
    fields: Map<String, Value>,
    family: Family,
) -> Result<CaseRecord, ImportError> {
    let text = |value: String| match family {
        Family::Pro => decode_text(value),
        Family::SweBench => value,
    };
    let mut row = Row::new(path, at, fields);
    let instance_id = row.required("instance_id")?;
    let repo = row.required("repo")?;
    let base_commit = row.required("base_commit")?;
    check_commit(&row, "base_commit", &base_commit)?;
    let problem_statement = text(row.required("problem_statement")?);
    let gold_patch = row.required("patch")?;
    let test_patch = row.required("test_patch")?;
    let hints_text = row.optional("hints_text")?.map(text);
    let requirements = row.optional("requirements")?.map(text);
    let interface = row.optional("interface")?.map(text);
    let fail_to_pass = test_list(&mut row, family, "fail_to_pass", "FAIL_TO_PASS")?;
    let pass_to_pass = test_list(&mut row, family, "pass_to_pass", "PASS_TO_PASS")?;
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

/// A test list under its upper-case name, or for SWE-bench Pro under its lower-case name
/// first.
fn test_list(
    row: &mut Row<'_>,
    family: Family,
    lower: &str,
    upper: &str,
) -> Result<Option<Vec<String>>, ImportError> {
    if family == Family::Pro
        && let Some(list) = row.test_list(lower)?
    {
        return Ok(Some(list));
    }
    row.test_list(upper)
}
