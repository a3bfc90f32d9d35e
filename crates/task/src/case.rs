//! Domain types for a benchmark task ("case") and where its content came from.
//!
//! A [`Case`] is the merged view a rater sees. It is assembled from one or more
//! [`CaseRecord`]s, one per kind of source (a dataset row, an audit folder, a stub created by an
//! annotation import), so a folder and a dataset row with the same `instance_id` become one case.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

mod shape;
mod title;

pub use shape::{CaseShape, ValueKind};
pub use title::TITLE_RULE;

/// Which kind of source contributed a [`CaseRecord`]. A case holds at most one record per kind;
/// a later import of the same kind replaces the earlier record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// A row of a SWE-bench family dataset (SWE-bench, Lite, Verified) or of SWE-bench Pro.
    Dataset,
    /// A case folder of the determinacy audit's receipts.
    AuditFolder,
    /// A case known only by its id, created by an annotation import before its materials.
    Stub,
}

impl SourceKind {
    /// The name stored in the project file.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Dataset => "dataset",
            SourceKind::AuditFolder => "audit_folder",
            SourceKind::Stub => "stub",
        }
    }

    /// Parses the stored name back.
    pub fn parse(name: &str) -> Option<SourceKind> {
        match name {
            "dataset" => Some(SourceKind::Dataset),
            "audit_folder" => Some(SourceKind::AuditFolder),
            "stub" => Some(SourceKind::Stub),
            _ => None,
        }
    }

    /// When two records give the same field, the one with the higher rank wins: a dataset row
    /// is the authoritative copy of a task, an audit folder a derived one.
    fn rank(self) -> u8 {
        match self {
            SourceKind::Dataset => 2,
            SourceKind::AuditFolder => 1,
            SourceKind::Stub => 0,
        }
    }
}

/// The determinacy audit's verdict on a case, kept as case metadata.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AuditNote {
    /// The case folder's name, e.g. `ansible_07e7b69c`.
    pub slug: String,
    /// The audit's verdict: `proven` for an `AMBIGUITY_WITNESS.md`; for an
    /// `AMBIGUITY_HYPOTHESIS.md`, `determined` when its class is `determined-codebase` and
    /// `rater-pending` otherwise; `entailed` where the audit's `COVERAGE.md` says ENTAILED;
    /// absent when nothing says.
    pub status: Option<String>,
    /// The witness class the audit gives, e.g. `misdetermined`, `airtight`.
    pub witness_class: Option<String>,
    /// The witness or hypothesis document, verbatim.
    pub witness: Option<String>,
    /// The folder's `codebase_ambiguity.json`, verbatim, for the evidence engine.
    pub codebase_ambiguity: Option<Value>,
}

impl AuditNote {
    /// A case's or source record's JSON without anything of the audit: what a rater may hold.
    /// The audit's verdict, witness class and witness text, and its `codebase_ambiguity.json`
    /// (a second model's verdict, an advocate's reasoning, the ways it chose as precedents) are
    /// the coordinator's; even the folder's name stays behind, so that nothing a rater holds
    /// tells an audited task from another. The server's `case_text` leaves out the same.
    pub fn strip_from(record: &mut Value) {
        if let Some(fields) = record.as_object_mut() {
            fields.remove("audit");
        }
    }
}

/// What one source says about a case. Fields a source does not carry are `None`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CaseRecord {
    /// The task's id, e.g. `astropy__astropy-14995`.
    pub instance_id: String,
    /// `owner/name` of the task's repository.
    pub repo: Option<String>,
    /// The full commit id the task starts from.
    pub base_commit: Option<String>,
    /// The issue text given to the solver (markdown or HTML from the internet: untrusted).
    pub problem_statement: Option<String>,
    /// Comments made on the issue before the fix (SWE-bench's `hints_text`).
    pub hints_text: Option<String>,
    /// SWE-bench Pro's requirements text.
    pub requirements: Option<String>,
    /// SWE-bench Pro's interface text.
    pub interface: Option<String>,
    /// The gold patch (unified diff).
    pub gold_patch: Option<String>,
    /// The test patch (unified diff).
    pub test_patch: Option<String>,
    /// Tests that fail before and pass after the gold patch.
    pub fail_to_pass: Option<Vec<String>>,
    /// Tests that pass before and after.
    pub pass_to_pass: Option<Vec<String>>,
    /// The determinacy audit's note, from an audit folder.
    pub audit: Option<AuditNote>,
    /// Every other field of the source, kept as it came.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// A task as a rater sees it: every source's record merged.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Case {
    /// The task's id.
    pub instance_id: String,
    /// `owner/name` of the task's repository (empty when no source gave one).
    pub repo: String,
    /// The full commit id the task starts from, when a source gave it.
    pub base_commit: Option<String>,
    /// The issue text (untrusted markdown or HTML).
    pub problem_statement: String,
    /// Comments made on the issue before the fix.
    pub hints_text: String,
    /// SWE-bench Pro's requirements text, when present.
    pub requirements: Option<String>,
    /// SWE-bench Pro's interface text, when present.
    pub interface: Option<String>,
    /// The gold patch.
    pub gold_patch: String,
    /// The test patch.
    pub test_patch: String,
    /// Tests that fail before and pass after the gold patch.
    pub fail_to_pass: Vec<String>,
    /// Tests that pass before and after.
    pub pass_to_pass: Vec<String>,
    /// The sources that contributed, in precedence order.
    pub sources: Vec<SourceKind>,
    /// The pull request's address, when it can be derived from the id and the repository.
    pub pr_url: Option<String>,
    /// The determinacy audit's note, when an audit folder was imported.
    pub audit: Option<AuditNote>,
    /// Other fields of the sources, kept as they came.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

impl Case {
    /// Merges the records of one case. A field comes from the highest-ranked source that has
    /// it (dataset row over audit folder over stub), so importing a dataset after a folder gives
    /// the case its base commit without losing the audit's note.
    pub fn merge(records: &[(SourceKind, &CaseRecord)]) -> Case {
        let mut ordered: Vec<(SourceKind, &CaseRecord)> = records.to_vec();
        ordered.sort_by_key(|(kind, _)| std::cmp::Reverse(kind.rank()));
        fn first<T: Clone>(
            ordered: &[(SourceKind, &CaseRecord)],
            field: impl Fn(&CaseRecord) -> &Option<T>,
        ) -> Option<T> {
            ordered.iter().find_map(|(_, r)| field(r).clone())
        }
        let instance_id = ordered
            .first()
            .map(|(_, r)| r.instance_id.clone())
            .unwrap_or_default();
        let repo = first(&ordered, |r| &r.repo).unwrap_or_default();
        let mut extra = Map::new();
        for (_, record) in ordered.iter().rev() {
            extra.extend(record.extra.clone());
        }
        let pr_url = derive_pr_url(&instance_id, &repo);
        Case {
            base_commit: first(&ordered, |r| &r.base_commit),
            problem_statement: first(&ordered, |r| &r.problem_statement).unwrap_or_default(),
            hints_text: first(&ordered, |r| &r.hints_text).unwrap_or_default(),
            requirements: first(&ordered, |r| &r.requirements),
            interface: first(&ordered, |r| &r.interface),
            gold_patch: first(&ordered, |r| &r.gold_patch).unwrap_or_default(),
            test_patch: first(&ordered, |r| &r.test_patch).unwrap_or_default(),
            fail_to_pass: first(&ordered, |r| &r.fail_to_pass).unwrap_or_default(),
            pass_to_pass: first(&ordered, |r| &r.pass_to_pass).unwrap_or_default(),
            sources: ordered.iter().map(|(kind, _)| *kind).collect(),
            audit: first(&ordered, |r| &r.audit),
            instance_id,
            repo,
            pr_url,
            extra,
        }
    }

    /// Whether the case has the materials a rater needs (issue text and both patches). A case
    /// created by an annotation import alone lacks them until its task is imported.
    pub fn has_materials(&self) -> bool {
        !self.problem_statement.is_empty() && !self.gold_patch.is_empty()
    }

    /// The title for lists: the first heading or first sentence, without template
    /// labels and markup, at most about 100 characters (see [`TITLE_RULE`]).
    pub fn title(&self) -> String {
        title::derive_title(&self.problem_statement)
    }
}

/// The SHA-256 of a value's canonical JSON, as lower-case hex. `serde_json` keeps object keys
/// sorted (no `preserve_order`), so equal content always hashes equal.
pub fn content_hash<T: Serialize>(value: &T) -> String {
    json_hash(&serde_json::to_vec(value).unwrap_or_default())
}

fn json_hash(json: &[u8]) -> String {
    let digest = Sha256::digest(json);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A value with its canonical JSON and that JSON's [`content_hash`], made once: the hash tells
/// whether a stored copy changed, and the JSON is what is stored.
#[derive(Debug, Clone)]
pub struct Encoded<T> {
    /// The value.
    pub value: T,
    /// Its JSON.
    pub json: String,
    /// [`content_hash`] of the value.
    pub hash: String,
    /// The JSON compressed as a project file stores it, when made ahead: an import compresses
    /// on the thread that reads, beside the one that stores.
    pub packed: Option<Vec<u8>>,
}

impl<T: Serialize> Encoded<T> {
    /// Encodes `value`.
    pub fn new(value: T) -> Encoded<T> {
        let json = serde_json::to_string(&value).unwrap_or_default();
        let hash = json_hash(json.as_bytes());
        Encoded {
            value,
            json,
            hash,
            packed: None,
        }
    }
}

/// Derives the pull request's address from a SWE-bench id (`owner__name-1234`): SWE-bench ids
/// end in the PR number. SWE-bench Pro ids end in a commit hash and have no PR number.
pub fn derive_pr_url(instance_id: &str, repo: &str) -> Option<String> {
    if repo.is_empty() {
        return None;
    }
    let (_, number) = instance_id.rsplit_once('-')?;
    if number.is_empty() || number.len() > 7 || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(format!("https://github.com/{repo}/pull/{number}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> CaseRecord {
        CaseRecord {
            instance_id: id.into(),
            ..CaseRecord::default()
        }
    }

    #[test]
    fn dataset_fields_win_over_audit_folder_fields() {
        let folder = CaseRecord {
            problem_statement: Some("from the folder".into()),
            gold_patch: Some("folder gold".into()),
            audit: Some(AuditNote {
                slug: "x_1".into(),
                ..AuditNote::default()
            }),
            ..record("x")
        };
        let row = CaseRecord {
            base_commit: Some("abc".into()),
            problem_statement: Some("from the dataset".into()),
            ..record("x")
        };
        let case = Case::merge(&[
            (SourceKind::AuditFolder, &folder),
            (SourceKind::Dataset, &row),
        ]);
        assert_eq!(case.problem_statement, "from the dataset");
        assert_eq!(
            case.gold_patch, "folder gold",
            "a field only the folder has is kept"
        );
        assert_eq!(case.base_commit.as_deref(), Some("abc"));
        assert_eq!(case.audit.map(|a| a.slug).as_deref(), Some("x_1"));
        assert_eq!(
            case.sources,
            vec![SourceKind::Dataset, SourceKind::AuditFolder]
        );
    }

    #[test]
    fn pr_url_comes_from_swe_bench_ids_only() {
        assert_eq!(
            derive_pr_url("astropy__astropy-14995", "astropy/astropy").as_deref(),
            Some("https://github.com/astropy/astropy/pull/14995")
        );
        assert_eq!(
            derive_pr_url(
                "instance_NodeBB__NodeBB-04998908ba6721d64eba79ae3b65a351dcfbc5b5-vnan",
                "NodeBB/NodeBB"
            ),
            None
        );
    }

    #[test]
    fn title_skips_heading_marks_and_title_prefix() {
        let case = Case {
            problem_statement: "\n**Title: Email Validation Status**\n\nbody".into(),
            ..Case::default()
        };
        assert_eq!(case.title(), "Email Validation Status");
    }

    #[test]
    fn equal_content_hashes_equal() {
        assert_eq!(content_hash(&record("a")), content_hash(&record("a")));
        assert_ne!(content_hash(&record("a")), content_hash(&record("b")));
        let encoded = Encoded::new(record("a"));
        assert_eq!(encoded.hash, content_hash(&record("a")));
        assert!(encoded.json.starts_with("{\"instance_id\":\"a\""));
    }
}
