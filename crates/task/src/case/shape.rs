//! What a case's fields are, without their values: stored beside each revision, so that a
//! dataset export chooses its columns from these few bytes instead of reading every task.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Case, SourceKind};

/// The kind of one JSON value, as a dataset's column takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    /// `null`.
    Null,
    /// A string.
    String,
    /// An array of strings only (the empty array too).
    StringList,
    /// An integer that fits 64 bits.
    Int,
    /// Any other number.
    Float,
    /// `true` or `false`.
    Bool,
    /// An object, or an array holding anything but strings.
    Other,
}

impl ValueKind {
    /// The kind of `value`.
    pub fn of(value: &Value) -> ValueKind {
        match value {
            Value::Null => ValueKind::Null,
            Value::String(_) => ValueKind::String,
            Value::Bool(_) => ValueKind::Bool,
            Value::Number(n) if n.is_i64() => ValueKind::Int,
            Value::Number(_) => ValueKind::Float,
            Value::Array(items) if items.iter().all(Value::is_string) => ValueKind::StringList,
            Value::Array(_) | Value::Object(_) => ValueKind::Other,
        }
    }
}

/// A case's shape: whether it has its SWE-bench fields and SWE-bench Pro's texts, and the kind
/// of each of its other fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseShape {
    /// A dataset row contributed to it, so it has its SWE-bench fields.
    pub dataset: bool,
    /// It has SWE-bench Pro's requirements or interface.
    pub pro: bool,
    /// Its other fields ([`Case::extra`]), by name.
    pub extra: BTreeMap<String, ValueKind>,
}

impl CaseShape {
    /// The shape of a case made from `sources`, with SWE-bench Pro's texts when `pro`, and
    /// these other fields: for a reader that has these parts of a case without the rest.
    pub fn of(sources: &[SourceKind], pro: bool, extra: &Map<String, Value>) -> CaseShape {
        CaseShape {
            dataset: sources.contains(&SourceKind::Dataset),
            pro,
            extra: extra
                .iter()
                .map(|(name, value)| (name.clone(), ValueKind::of(value)))
                .collect(),
        }
    }
}

impl Case {
    /// The case's shape.
    pub fn shape(&self) -> CaseShape {
        let pro = self.requirements.is_some() || self.interface.is_some();
        CaseShape::of(&self.sources, pro, &self.extra)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn each_value_has_the_kind_a_column_takes() {
        let kinds: Vec<ValueKind> = [
            json!(null),
            json!("a"),
            json!(["a", "b"]),
            json!([]),
            json!(3),
            json!(-3),
            json!(2.5),
            json!(u64::MAX),
            json!(false),
            json!({"a": 1}),
            json!(["a", 1]),
        ]
        .iter()
        .map(ValueKind::of)
        .collect();
        use ValueKind::*;
        assert_eq!(
            kinds,
            [
                Null, String, StringList, StringList, Int, Int, Float, Float, Bool, Other, Other
            ]
        );
    }

    #[test]
    fn a_shape_says_what_the_case_holds_and_reads_back() {
        let mut case: Case = serde_json::from_value(json!({
            "instance_id": "o__r-1", "repo": "o/r", "base_commit": null,
            "problem_statement": "p", "hints_text": "", "requirements": null,
            "interface": "fn f()", "gold_patch": "g", "test_patch": "t",
            "fail_to_pass": [], "pass_to_pass": [], "sources": ["audit_folder", "dataset"],
            "pr_url": null, "audit": null,
            "extra": {"image_name": "img", "selected_test_files": ["a.py"], "n": null}
        }))
        .unwrap();
        let shape = case.shape();
        assert!(shape.dataset && shape.pro);
        assert_eq!(
            serde_json::to_string(&shape).unwrap(),
            r#"{"dataset":true,"pro":true,"extra":{"image_name":"string","n":"null","selected_test_files":"string_list"}}"#
        );
        assert_eq!(
            serde_json::from_str::<CaseShape>(&serde_json::to_string(&shape).unwrap()).unwrap(),
            shape
        );
        case.sources = vec![SourceKind::Stub];
        case.interface = None;
        case.extra.clear();
        assert_eq!(case.shape(), CaseShape::default());
    }
}
