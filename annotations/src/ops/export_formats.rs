//! The export formats in one list, with what each writes: the CLI's `--format` values and their
//! help, the desktop's choice of format and its save dialog, and the TypeScript union are all
//! built from it. `export.rs` writes them.

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Error, ErrorCode};

/// What `export` writes, declared in the order the front ends list them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum ExportFormat {
    /// One JSON line per case: the ensemble, each rater's answers, the agreement per question.
    Jsonl,
    /// One CSV row per case, with the same content as `jsonl`.
    Csv,
    /// One JSON line per case and rater with their latest submitted answer.
    AnswersJsonl,
    /// OpenAI's per-annotator file: one row per case and rater.
    OpenaiAnnotations,
    /// OpenAI's ensembled file: one row per case, 14 columns.
    OpenaiEnsembled,
    /// The tasks a determinate-only score leaves out, and why: one CSV row each.
    Underdetermined,
    /// A dataset folder for the Hugging Face Hub: Parquet files of the tasks with the panel's
    /// labels and of each rater's annotations, and a dataset card.
    Hub,
}

/// An export format as the front ends offer it: the CLI's `--format` value and its help, the
/// desktop's title and hint, and what its save dialog proposes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct ExportFormatInfo {
    /// The format (its name, as `--format` takes it).
    pub format: ExportFormat,
    /// A short title for a list of formats.
    pub title: &'static str,
    /// What it writes, in a sentence.
    pub description: &'static str,
    /// The file name a save dialog proposes.
    pub file_name: &'static str,
    /// The file type's name in a save dialog's filter.
    pub file_type: &'static str,
    /// The file name's extension, without the dot.
    pub extension: &'static str,
    /// Whether the ensemble rule (`--rule`) changes what it writes.
    pub uses_rule: bool,
    /// Whether it writes a folder (chosen as a folder) instead of one file.
    pub folder: bool,
}

impl ExportFormat {
    /// Every format, in the order the front ends list them.
    pub const ALL: [ExportFormat; 7] = [
        ExportFormat::Jsonl,
        ExportFormat::Csv,
        ExportFormat::AnswersJsonl,
        ExportFormat::OpenaiAnnotations,
        ExportFormat::OpenaiEnsembled,
        ExportFormat::Underdetermined,
        ExportFormat::Hub,
    ];

    /// The format's name, as `--format`, the desktop and JSON spell it.
    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::Jsonl => "jsonl",
            ExportFormat::Csv => "csv",
            ExportFormat::AnswersJsonl => "answers-jsonl",
            ExportFormat::OpenaiAnnotations => "openai-annotations",
            ExportFormat::OpenaiEnsembled => "openai-ensembled",
            ExportFormat::Underdetermined => "underdetermined",
            ExportFormat::Hub => "hub",
        }
    }

    /// What the front ends say about the format and propose for its file.
    pub fn info(self) -> ExportFormatInfo {
        use FileKind::{Csv, Folder, JsonLines};
        let (title, description, file_name, kind, uses_rule) = match self {
            ExportFormat::Jsonl => (
                "Tasks (JSON lines)",
                "One line per task: its ensemble labels with who decided them, the share of agreeing rater pairs per question, and every rater's answers.",
                "verity-tasks.jsonl",
                JsonLines,
                true,
            ),
            ExportFormat::Csv => (
                "Tasks (CSV)",
                "The same as the tasks' JSON lines, one row per task; raters take numbered columns in the order they first submitted.",
                "verity-tasks.csv",
                Csv,
                true,
            ),
            ExportFormat::AnswersJsonl => (
                "Answers (JSON lines)",
                "One line per task and rater: the rater's latest submitted answer.",
                "verity-answers.jsonl",
                JsonLines,
                false,
            ),
            ExportFormat::OpenaiAnnotations => (
                "OpenAI annotations (CSV)",
                "The columns of SWE-bench Verified's per-annotator file: one row per task and rater.",
                "samples_with_3_annotations_public.csv",
                Csv,
                false,
            ),
            ExportFormat::OpenaiEnsembled => (
                "OpenAI ensembled (CSV)",
                "The columns of SWE-bench Verified's ensembled file: one row per task with its labels and filter_out.",
                "ensembled_annotations_public.csv",
                Csv,
                true,
            ),
            ExportFormat::Underdetermined => (
                "Tasks left out of scores (CSV)",
                "The tasks a determinate-only score leaves out, and why: one row per task.",
                "underdetermined.csv",
                Csv,
                false,
            ),
            ExportFormat::Hub => (
                "Hugging Face dataset (folder)",
                "A dataset folder for the Hub: the tasks with the panel's labels and each rater's annotations as Parquet, and a dataset card; --license is required.",
                "verity-dataset",
                Folder,
                true,
            ),
        };
        let (file_type, extension) = match kind {
            Csv => ("CSV", "csv"),
            JsonLines => ("JSON lines", "jsonl"),
            Folder => ("Folder", ""),
        };
        ExportFormatInfo {
            format: self,
            title,
            description,
            file_name,
            file_type,
            extension,
            uses_rule,
            folder: matches!(kind, Folder),
        }
    }
}

/// The kinds of file the formats write.
#[derive(Clone, Copy)]
enum FileKind {
    Csv,
    JsonLines,
    Folder,
}

impl FromStr for ExportFormat {
    type Err = Error;

    /// The format of a name [`ExportFormat::name`] gives.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        ExportFormat::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| {
                Error::refused(
                    ErrorCode::BadInput,
                    format!(
                        "there is no export format {name:?}; the formats are {}",
                        ExportFormat::ALL.map(ExportFormat::name).join(", ")
                    ),
                )
            })
    }
}

/// Every export format with what the front ends say about it, in their order.
pub fn export_formats() -> Vec<ExportFormatInfo> {
    ExportFormat::ALL.map(ExportFormat::info).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_holds_every_format_once_in_declaration_order_by_its_serde_name() {
        // ts-rs spells the union from the enum's declaration and serde's names: a variant left
        // out of `ALL`, listed out of order or named apart from serde fails here.
        let listed: Vec<String> = ExportFormat::ALL
            .iter()
            .map(|f| format!("{:?}", f.name()))
            .collect();
        assert_eq!(
            ExportFormat::inline(&ts_rs::Config::default()),
            listed.join(" | ")
        );
        for format in ExportFormat::ALL {
            assert_eq!(serde_json::to_value(format).expect("a name"), format.name());
            assert_eq!(format.name().parse::<ExportFormat>().ok(), Some(format));
        }
    }

    #[test]
    fn each_format_proposes_a_file_of_its_type() {
        for info in export_formats() {
            let name = info.format.name();
            assert_eq!(info.folder, info.extension.is_empty(), "{name}");
            assert!(
                info.folder || info.file_name.ends_with(&format!(".{}", info.extension)),
                "{name}"
            );
            assert!(info.description.ends_with('.'), "{name}");
        }
    }

    #[test]
    fn an_unknown_name_is_refused_with_the_formats() {
        let err = "xlsx".parse::<ExportFormat>().expect_err("no such format");
        assert!(
            err.to_string().contains("jsonl, csv, answers-jsonl"),
            "{err}"
        );
    }
}
