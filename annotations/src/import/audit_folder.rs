//! The determinacy audit's case folders: `cases/<slug>/` with `instance_id.txt`, `spec.md`
//! (sections PROBLEM, REQUIREMENTS, INTERFACE), `gold.diff`, `hidden_test.diff`,
//! `fail_to_pass.txt`, and optionally `codebase_ambiguity.json` (code precedents for the
//! evidence engine) and `AMBIGUITY_WITNESS.md` (a proven verdict) or `AMBIGUITY_HYPOTHESIS.md`
//! (a hypothesis: rater-pending, except the class `determined-codebase`, which the audit files
//! as "not claimed": the codebase determines the task).
//!
//! The audit's `COVERAGE.md` (beside `cases/`) gives every task's verdict; when it is there,
//! each folder's status comes from it, so the ENTAILED tasks, which carry no document, are
//! labelled too, and a folder whose document contradicts its verdict refuses the import.
//!
//! A folder carries no full base commit (the slug ends in its first 8 hex digits), so a folder
//! becomes a complete case once the dataset row with the same `instance_id` is imported.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::{ImportError, SourcedRecord};
use verity_task::case::{AuditNote, CaseRecord, Encoded, SourceKind};

/// Reads every case folder under `root`, in name order.
pub fn read_folders(
    root: &Path,
    sink: &mut dyn FnMut(SourcedRecord) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    let io = |source| ImportError::Io {
        path: root.to_path_buf(),
        source,
    };
    let mut folders = Vec::new();
    for entry in std::fs::read_dir(root).map_err(io)? {
        let entry = entry.map_err(io)?;
        if entry.file_type().map_err(io)?.is_dir() {
            folders.push(entry.path());
        }
    }
    if folders.is_empty() {
        return Err(ImportError::UnknownFormat {
            path: root.to_path_buf(),
            reason: "this folder holds no case folders and no task dataset".into(),
        });
    }
    folders.sort();
    let coverage = read_coverage(root)?;
    for folder in folders {
        let mut record = read_folder(&folder)?;
        if let Some((file, verdicts)) = &coverage {
            apply_coverage(file, verdicts, &mut record)?;
        }
        sink(record)?;
    }
    Ok(())
}

/// A task's verdict in `COVERAGE.md` and the line that gives it.
struct CoverageVerdict {
    verdict: String,
    line: usize,
}

/// The file `COVERAGE.md` and each case folder's name to its verdict there.
type Coverage = (std::path::PathBuf, HashMap<String, CoverageVerdict>);

/// `COVERAGE.md` in `root`, or beside it when `root` is the audit's `cases/` folder.
fn read_coverage(root: &Path) -> Result<Option<Coverage>, ImportError> {
    let beside = root
        .file_name()
        .is_some_and(|n| n == "cases")
        .then(|| root.parent())
        .flatten();
    let Some(file) = [Some(root), beside]
        .into_iter()
        .flatten()
        .map(|dir| dir.join("COVERAGE.md"))
        .find(|f| f.is_file())
    else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&file).map_err(|source| ImportError::Io {
        path: file.clone(),
        source,
    })?;
    let mut verdicts = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let cells: Vec<&str> = line.trim().split('|').map(str::trim).collect();
        // `| case | verdict | cov | GAP | witness class | attribution |`
        let [_, slug, verdict, ..] = cells.as_slice() else {
            continue;
        };
        if cells.len() < 4 || *slug == "case" || slug.starts_with("---") || slug.is_empty() {
            continue;
        }
        if !COVERAGE_VERDICTS.contains(verdict) {
            return Err(ImportError::BadField {
                path: file.clone(),
                at: format!("line {}", i + 1),
                field: "verdict".into(),
                reason: format!(
                    "is {verdict:?}, and the audit's verdicts are {}",
                    COVERAGE_VERDICTS.join(", ")
                ),
            });
        }
        verdicts.insert(
            slug.to_string(),
            CoverageVerdict {
                verdict: verdict.to_string(),
                line: i + 1,
            },
        );
    }
    Ok(Some((file, verdicts)))
}

/// The verdicts `COVERAGE.md` gives.
const COVERAGE_VERDICTS: &[&str] = &[
    "ENTAILED",
    "DETERMINED-codebase",
    "MISDETERMINED",
    "AMBIGUOUS",
];

/// Sets a folder's status from its verdict in `COVERAGE.md`: `entailed`, `determined`,
/// `proven` (a defect verdict with a witness) or `rater-pending` (a defect verdict without
/// one); refuses a folder whose document says otherwise.
fn apply_coverage(
    file: &Path,
    verdicts: &HashMap<String, CoverageVerdict>,
    record: &mut SourcedRecord,
) -> Result<(), ImportError> {
    let Some(note) = record.record.value.audit.as_mut() else {
        return Ok(());
    };
    let Some(found) = verdicts.get(&note.slug) else {
        return Ok(());
    };
    let from_folder = note.status.clone();
    let status = match (found.verdict.as_str(), from_folder.as_deref()) {
        ("ENTAILED", None) => "entailed",
        ("DETERMINED-codebase", Some("determined")) => "determined",
        ("MISDETERMINED" | "AMBIGUOUS", Some("proven")) => "proven",
        ("MISDETERMINED" | "AMBIGUOUS", None | Some("rater-pending")) => "rater-pending",
        (verdict, folder) => {
            return Err(ImportError::BadField {
                path: file.to_path_buf(),
                at: format!("line {}", found.line),
                field: "verdict".into(),
                reason: format!(
                    "is {verdict} for {}, whose folder says {}",
                    note.slug,
                    folder.map_or_else(
                        || "nothing (no witness and no hypothesis)".to_string(),
                        |s| format!(
                            "{s} ({})",
                            note.witness_class.as_deref().unwrap_or("no class")
                        )
                    )
                ),
            });
        }
    };
    note.status = Some(status.to_string());
    record.record = Encoded::new(std::mem::take(&mut record.record.value));
    Ok(())
}

/// Reads one case folder.
pub fn read_folder(folder: &Path) -> Result<SourcedRecord, ImportError> {
    let Some(id_text) = read_text(folder, "instance_id.txt")? else {
        return Err(ImportError::NoInstanceId {
            path: folder.to_path_buf(),
        });
    };
    let instance_id = id_text.trim().to_string();
    if instance_id.is_empty() || instance_id.contains(char::is_whitespace) {
        return Err(ImportError::BadField {
            path: folder.join("instance_id.txt"),
            at: "line 1".into(),
            field: "instance_id".into(),
            reason: "must be one id without spaces".into(),
        });
    }
    let required = |name: &'static str| -> Result<String, ImportError> {
        read_text(folder, name)?.ok_or(ImportError::MissingFile {
            path: folder.to_path_buf(),
            file: name,
        })
    };
    let spec = Spec::parse(&required("spec.md")?);
    let gold = required("gold.diff")?;
    let test = required("hidden_test.diff")?;
    let fail_to_pass = read_text(folder, "fail_to_pass.txt")?.map(|text| {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect::<Vec<_>>()
    });
    let codebase_ambiguity = match read_text(folder, "codebase_ambiguity.json")? {
        None => None,
        Some(text) => {
            Some(
                serde_json::from_str::<Value>(&text).map_err(|e| ImportError::Json {
                    path: folder.join("codebase_ambiguity.json"),
                    at: format!("line {}", e.line()),
                    reason: e.to_string(),
                })?,
            )
        }
    };
    let (proven, witness) = match read_text(folder, "AMBIGUITY_WITNESS.md")? {
        Some(text) => (true, Some(text)),
        None => (false, read_text(folder, "AMBIGUITY_HYPOTHESIS.md")?),
    };
    let slug = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let witness_class = witness.as_deref().and_then(witness_class);
    let status = match (proven, &witness, witness_class.as_deref()) {
        (true, _, _) => Some("proven"),
        (false, Some(_), Some(DETERMINED_CLASS)) => Some("determined"),
        (false, Some(_), _) => Some("rater-pending"),
        (false, None, _) => None,
    }
    .map(String::from);
    Ok(SourcedRecord {
        kind: SourceKind::AuditFolder,
        origin: folder.display().to_string(),
        record: Encoded::new(CaseRecord {
            repo: repo_from_pro_id(&instance_id),
            instance_id,
            base_commit: None,
            problem_statement: spec.problem,
            hints_text: None,
            requirements: spec.requirements,
            interface: spec.interface,
            gold_patch: Some(gold),
            test_patch: Some(test),
            fail_to_pass,
            pass_to_pass: None,
            audit: Some(AuditNote {
                slug,
                status,
                witness_class,
                witness,
                codebase_ambiguity,
            }),
            extra: Default::default(),
        }),
    })
}

/// The hypothesis class the audit does not claim as a defect: the prose is silent and the
/// codebase makes the choice one live way, which the gold patch follows.
const DETERMINED_CLASS: &str = "determined-codebase";

/// Reads a file of the folder as UTF-8; `None` when it does not exist.
fn read_text(folder: &Path, name: &str) -> Result<Option<String>, ImportError> {
    let path = folder.join(name);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(ImportError::Io { path, source }),
    };
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Some(text)),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..valid]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            Err(ImportError::NotUtf8 { path, line })
        }
    }
}

/// The three sections of `spec.md`. Only these exact headings start a section: the problem
/// text has `##` headings of its own.
struct Spec {
    problem: Option<String>,
    requirements: Option<String>,
    interface: Option<String>,
}

impl Spec {
    fn parse(text: &str) -> Spec {
        let mut spec = Spec {
            problem: None,
            requirements: None,
            interface: None,
        };
        let mut current: Option<&str> = None;
        let mut body = String::new();
        let flush = |section: Option<&str>, body: &mut String, spec: &mut Spec| {
            let value = Some(body.trim().to_string()).filter(|b| !b.is_empty());
            match section {
                Some("PROBLEM") => spec.problem = value,
                Some("REQUIREMENTS") => spec.requirements = value,
                Some("INTERFACE") => spec.interface = value,
                _ => {}
            }
            body.clear();
        };
        for line in text.lines() {
            let heading = line.trim_end();
            if let Some(name @ ("PROBLEM" | "REQUIREMENTS" | "INTERFACE")) =
                heading.strip_prefix("## ")
            {
                flush(current, &mut body, &mut spec);
                current = Some(name);
                continue;
            }
            if current.is_some() {
                body.push_str(line);
                body.push('\n');
            }
        }
        flush(current, &mut body, &mut spec);
        spec
    }
}

/// The witness class an audit document states on its `- class: **...**` line.
fn witness_class(doc: &str) -> Option<String> {
    doc.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("- class:")?.trim();
        let rest = rest.strip_prefix("**")?;
        let end = rest.find("**")?;
        Some(rest[..end].trim().to_string())
    })
}

/// `instance_<owner>__<name>-<40 hex>[-suffix]` gives `owner/name`.
fn repo_from_pro_id(id: &str) -> Option<String> {
    let rest = id.strip_prefix("instance_")?;
    let (owner, rest) = rest.split_once("__")?;
    let bytes = rest.as_bytes();
    let cut = (0..bytes.len()).find(|&i| {
        bytes[i] == b'-'
            && bytes.len() >= i + 41
            && bytes[i + 1..i + 41].iter().all(u8::is_ascii_hexdigit)
    })?;
    Some(format!("{owner}/{}", &rest[..cut]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_comes_from_pro_ids() {
        assert_eq!(
            repo_from_pro_id(
                "instance_element-hq__element-web-33e8edb3d508d6eefb354819ca693b7accc695e7"
            )
            .as_deref(),
            Some("element-hq/element-web")
        );
        assert_eq!(
            repo_from_pro_id(
                "instance_NodeBB__NodeBB-04998908ba6721d64eba79ae3b65a351dcfbc5b5-vnan"
            )
            .as_deref(),
            Some("NodeBB/NodeBB")
        );
        assert_eq!(repo_from_pro_id("astropy__astropy-1"), None);
    }

    #[test]
    fn spec_sections_ignore_nested_headings() {
        let spec = Spec::parse(
            "# x\n\n## PROBLEM\n# Title\n\n## Description\nbody\n\n## REQUIREMENTS\n- r\n\n## INTERFACE\nNo new interfaces are introduced.\n",
        );
        assert_eq!(
            spec.problem.as_deref(),
            Some("# Title\n\n## Description\nbody")
        );
        assert_eq!(spec.requirements.as_deref(), Some("- r"));
        assert_eq!(
            spec.interface.as_deref(),
            Some("No new interfaces are introduced.")
        );
    }

    #[test]
    fn witness_class_is_read_from_the_class_line() {
        let doc =
            "# Ambiguity witness\n\n- instance_id: `x`\n- class: **misdetermined** (PROVEN)\n";
        assert_eq!(witness_class(doc).as_deref(), Some("misdetermined"));
    }
}
