//! SWE-bench Pro: the SWE-bench fields plus `requirements` and `interface`, lower-case
//! `fail_to_pass`/`pass_to_pass`. Some text fields are stored JSON-encoded: the value itself
//! is a quoted JSON string with `\n` escapes. Those are decoded; the others are left alone.

use std::path::Path;

use serde_json::{Map, Value};

use super::{ImportError, Row, check_commit};
use crate::case::CaseRecord;

/// Turns one SWE-bench Pro row into a record.
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
    let problem_statement = decode_text(row.required("problem_statement")?);
    let gold_patch = row.required("patch")?;
    let test_patch = row.required("test_patch")?;
    let requirements = row.optional("requirements")?.map(decode_text);
    let interface = row.optional("interface")?.map(decode_text);
    let hints_text = row.optional("hints_text")?.map(decode_text);
    let fail_to_pass = match row.test_list("fail_to_pass")? {
        Some(list) => Some(list),
        None => row.test_list("FAIL_TO_PASS")?,
    };
    let pass_to_pass = match row.test_list("pass_to_pass")? {
        Some(list) => Some(list),
        None => row.test_list("PASS_TO_PASS")?,
    };
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

/// Decodes a text stored JSON-encoded (starting and ending with a double quote and parsing as
/// a JSON string); returns any other text unchanged.
pub fn decode_text(text: String) -> String {
    let trimmed = text.trim();
    if trimmed.len() >= 2
        && trimmed.starts_with('"')
        && trimmed.ends_with('"')
        && let Ok(decoded) = serde_json::from_str::<String>(trimmed)
    {
        return decoded;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_encoded_text_is_decoded_and_plain_text_left_alone() {
        assert_eq!(decode_text("\"a\\nb\"".into()), "a\nb");
        assert_eq!(
            decode_text("plain \"quoted\" text".into()),
            "plain \"quoted\" text"
        );
        assert_eq!(decode_text("\"unbalanced".into()), "\"unbalanced");
        assert_eq!(
            decode_text("\"starts\" and ends \"".into()),
            "\"starts\" and ends \"",
            "a quote at each end that is not one JSON string is plain text"
        );
    }
}
