//! A dataset card: the `README.md` the Hugging Face Hub shows for a dataset, its YAML metadata
//! (configs and their files, licence, creators, size) and a body written from the facts `ops`
//! gathers from the project.

use std::fmt::Write as _;

/// One config of the dataset: a folder of Parquet shards per split.
#[derive(Debug, Clone)]
pub struct CardConfig {
    /// Its name (`default`, `annotations`).
    pub name: String,
    /// The folder its files are in (`data`, `annotations`).
    pub folder: String,
    /// What one row is, in a sentence.
    pub row: String,
    /// Rows in the split.
    pub rows: usize,
    /// Its columns: name, type and what it holds.
    pub columns: Vec<(String, String, String)>,
}

/// Agreement on one question.
#[derive(Debug, Clone)]
pub struct CardAgreement {
    /// The question's number and id.
    pub question: String,
    /// Its level of measurement.
    pub level: String,
    /// Tasks with at least one rating.
    pub units: usize,
    /// The share of agreeing rater pairs.
    pub percent: Option<f64>,
    /// Krippendorff's alpha at the level.
    pub alpha: Option<f64>,
    /// Its 95% bootstrap interval.
    pub interval: Option<[f64; 2]>,
    /// Why a value is undefined.
    pub note: Option<String>,
}

/// One system's scores.
#[derive(Debug, Clone)]
pub struct CardScore {
    /// The system.
    pub system: String,
    /// Its resolve rate over every task, with the 95% Wilson interval.
    pub raw: (Option<f64>, Option<[f64; 2]>),
    /// Its rate over the determinate tasks, with the interval.
    pub determinate: (Option<f64>, Option<[f64; 2]>),
}

/// Everything the card says.
#[derive(Debug, Clone)]
pub struct Card {
    /// The dataset's name for people.
    pub pretty_name: String,
    /// The licence, as given.
    pub license: String,
    /// The split.
    pub split: String,
    /// True when only the tasks the filter keeps are in it.
    pub kept_only: bool,
    /// Where the tasks came from (datasets on the Hub, files).
    pub sources: Vec<String>,
    /// The questionnaire's id, version and title.
    pub questionnaire: (String, String, String),
    /// Human raters with a submitted answer.
    pub human_raters: usize,
    /// Model raters with a submitted answer, by model.
    pub models: Vec<String>,
    /// True when raters are named by pseudonyms.
    pub pseudonyms: bool,
    /// Tasks by the number of raters assigned to each: (raters, tasks).
    pub assigned: Vec<(usize, usize)>,
    /// Calibration tasks (with reference labels, mixed into queues).
    pub calibration: usize,
    /// Labels an adjudicator decided.
    pub adjudicated: usize,
    /// The ensemble rule.
    pub rule: String,
    /// The filter rule in words.
    pub filter: Option<String>,
    /// The project's tasks: kept, filtered out, undecided, not rated.
    pub counts: [usize; 4],
    /// Tasks left out for lack of a dataset record (imported from an audit folder or an
    /// annotation file alone).
    pub without_fields: usize,
    /// Agreement per question, on each rater's first submission.
    pub agreement: Vec<CardAgreement>,
    /// Resamples and seed of the intervals.
    pub bootstrap: (usize, u64),
    /// Systems' scores, when the project holds results: (tasks, determinate tasks, systems).
    pub scores: Option<(usize, usize, Vec<CardScore>)>,
    /// The configs, the tasks' first.
    pub configs: Vec<CardConfig>,
    /// Verity's version and when the folder was written.
    pub made: (String, String),
}

/// What `verity publish` puts in place of the loading example's repository.
pub const REPO_PLACEHOLDER: &str = "\"OWNER/NAME\"";

/// The Hub's size category of a row count.
pub fn size_category(rows: usize) -> &'static str {
    match rows {
        0..1_000 => "n<1K",
        1_000..10_000 => "1K<n<10K",
        10_000..100_000 => "10K<n<100K",
        100_000..1_000_000 => "100K<n<1M",
        1_000_000..10_000_000 => "1M<n<10M",
        _ => "10M<n<100M",
    }
}

/// A YAML scalar: a JSON string, which YAML reads as written whatever it holds.
fn yaml(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn fixed(v: Option<f64>) -> String {
    v.map_or_else(|| "undefined".into(), |x| format!("{x:.3}"))
}

fn interval(v: Option<[f64; 2]>) -> String {
    v.map_or_else(String::new, |[lo, hi]| format!("[{lo:.3}, {hi:.3}]"))
}

fn percent(rate: (Option<f64>, Option<[f64; 2]>)) -> String {
    let mut out = rate
        .0
        .map_or_else(|| "undefined".into(), |r| format!("{:.1}%", 100.0 * r));
    if let Some([lo, hi]) = rate.1 {
        let _ = write!(out, " [{:.1}, {:.1}]", 100.0 * lo, 100.0 * hi);
    }
    out
}

/// The card's YAML block.
fn metadata(card: &Card) -> String {
    let mut y = String::from("---\n");
    let _ = writeln!(y, "pretty_name: {}", yaml(&card.pretty_name));
    let _ = writeln!(y, "license: {}", yaml(&card.license));
    let _ = writeln!(y, "language:\n- en");
    let _ = writeln!(y, "annotations_creators:\n- expert-generated");
    if !card.models.is_empty() {
        let _ = writeln!(y, "- machine-generated");
    }
    let _ = writeln!(y, "task_categories:\n- text-generation");
    let rows = card.configs.first().map_or(0, |c| c.rows);
    let _ = writeln!(y, "size_categories:\n- {}", size_category(rows));
    let _ = writeln!(
        y,
        "tags:\n- code\n- software-engineering\n- swe-bench\n- annotations"
    );
    let _ = writeln!(y, "configs:");
    for (i, config) in card.configs.iter().enumerate() {
        let _ = writeln!(y, "- config_name: {}", yaml(&config.name));
        if i == 0 {
            let _ = writeln!(y, "  default: true");
        }
        let _ = writeln!(y, "  data_files:");
        let _ = writeln!(y, "  - split: {}", yaml(&card.split));
        let _ = writeln!(
            y,
            "    path: {}",
            yaml(&format!("{}/{}-*.parquet", config.folder, card.split))
        );
    }
    y.push_str("---\n");
    y
}

/// The whole `README.md`.
pub fn render(card: &Card) -> String {
    let mut md = metadata(card);
    let (qid, qversion, qtitle) = &card.questionnaire;
    let tasks = card.configs.first().map_or(0, |c| c.rows);
    let _ = writeln!(md, "\n# {}\n", card.pretty_name);
    let raters = if card.models.is_empty() {
        format!("{} human raters", card.human_raters)
    } else {
        format!(
            "{} human raters and {} model raters ({})",
            card.human_raters,
            card.models.len(),
            card.models.join(", ")
        )
    };
    let _ = writeln!(
        md,
        "{tasks} software-engineering tasks{}, each with the labels a panel of {raters} gave them with the questionnaire `{qid}` version {qversion} ({}). {}\n",
        if card.sources.is_empty() {
            String::new()
        } else {
            format!(" from {}", card.sources.join(", "))
        },
        qtitle,
        if card.kept_only {
            "Only the tasks the questionnaire's filter keeps are here."
        } else {
            "Every task of the panel is here, kept or filtered out, with why."
        }
    );
    let _ = writeln!(md, "## Configs\n");
    let _ = writeln!(md, "| config | a row is | rows in `{}` |", card.split);
    let _ = writeln!(md, "|---|---|---:|");
    for config in &card.configs {
        let _ = writeln!(
            md,
            "| `{}` | {} | {} |",
            config.name,
            cell(&config.row),
            config.rows
        );
    }
    let _ = writeln!(md, "\n## How to load it\n");
    let _ = writeln!(md, "```python\nfrom datasets import load_dataset\n");
    for (i, config) in card.configs.iter().enumerate() {
        let name = if i == 0 {
            String::new()
        } else {
            format!(", {}", yaml(&config.name))
        };
        let _ = writeln!(
            md,
            "{} = load_dataset({REPO_PLACEHOLDER}{name}, split={})",
            config.name.replace('-', "_"),
            yaml(&card.split)
        );
    }
    let _ = writeln!(md, "```\n");
    let _ = writeln!(
        md,
        "The Parquet files under each config's folder read with pyarrow or pandas as they are; `verity fetch` imports the tasks into a Verity project.\n"
    );

    let _ = writeln!(md, "## How the tasks were rated\n");
    let _ = writeln!(
        md,
        "- **Questionnaire**: `{qid}` version {qversion}, {qtitle}. Each rater answered it on their own, blind to the others' answers until they submitted."
    );
    let assigned: Vec<String> = card
        .assigned
        .iter()
        .map(|(raters, tasks)| {
            format!(
                "{tasks} task{} with {raters} rater{}",
                if *tasks == 1 { "" } else { "s" },
                if *raters == 1 { "" } else { "s" }
            )
        })
        .collect();
    let _ = writeln!(
        md,
        "- **Assignment**: {}{}.",
        if assigned.is_empty() {
            "no task was assigned".to_string()
        } else {
            assigned.join(", ")
        },
        if card.calibration > 0 {
            format!(
                "; {} calibration tasks with reference labels were mixed into the queues",
                card.calibration
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        md,
        "- **Raters**: {raters}{}.",
        if card.pseudonyms {
            ", named by pseudonyms that stay the same from one export of the project to the next"
        } else {
            ", named as the project names them"
        }
    );
    if !card.models.is_empty() {
        let _ = writeln!(
            md,
            "- **Model raters** are marked `model` in the annotations' `rater_kind`; their answers are machine-generated."
        );
    }
    let _ = writeln!(
        md,
        "- **Labels**: one per question by the `{}` rule over each rater's latest submitted answer; an adjudicator's decision overrides the rule ({}).",
        card.rule,
        match card.adjudicated {
            0 => "no label was adjudicated".to_string(),
            1 => "1 label was adjudicated".to_string(),
            n => format!("{n} labels were adjudicated"),
        }
    );
    let [kept, dropped, undecided, unrated] = card.counts;
    let _ = writeln!(md, "\n## Kept and filtered out\n");
    match &card.filter {
        Some(filter) => {
            let _ = writeln!(md, "Filter: {filter}\n");
        }
        None => {
            let _ = writeln!(md, "The questionnaire has no filter rule.\n");
        }
    }
    let _ = writeln!(
        md,
        "| kept | filtered out | undecided (a label is missing) | not rated |"
    );
    let _ = writeln!(md, "|---:|---:|---:|---:|");
    let _ = writeln!(md, "| {kept} | {dropped} | {undecided} | {unrated} |");
    if card.without_fields > 0 {
        let _ = writeln!(
            md,
            "\n{} tasks of the project are left out: they were imported without their SWE-bench fields (from an audit folder or an annotation file alone).",
            card.without_fields
        );
    }

    let _ = writeln!(md, "\n## Agreement\n");
    let (resamples, seed) = card.bootstrap;
    let _ = writeln!(
        md,
        "On each rater's first submission, at each question's level of measurement; intervals are 95% percentile bootstraps over tasks ({resamples} resamples, seed {seed}).\n"
    );
    let _ = writeln!(
        md,
        "| question | level | tasks | percent agreement | Krippendorff's alpha | interval |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---|");
    for a in &card.agreement {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&a.question),
            a.level,
            a.units,
            fixed(a.percent),
            fixed(a.alpha),
            a.note.as_deref().map_or_else(|| interval(a.interval), cell)
        );
    }
    if let Some((n, determinate, systems)) = &card.scores {
        let _ = writeln!(md, "\n## Scores\n");
        let _ = writeln!(
            md,
            "Each system's resolve rate over all {n} tasks of the project beside its rate over the {determinate} determinate ones, with 95% Wilson intervals.\n"
        );
        let _ = writeln!(md, "| system | every task | determinate tasks |");
        let _ = writeln!(md, "|---|---|---|");
        for s in systems {
            let _ = writeln!(
                md,
                "| {} | {} | {} |",
                cell(&s.system),
                percent(s.raw),
                percent(s.determinate)
            );
        }
    }
    for config in &card.configs {
        let _ = writeln!(md, "\n## Fields of `{}`\n", config.name);
        let _ = writeln!(md, "| field | type | what it holds |");
        let _ = writeln!(md, "|---|---|---|");
        for (name, kind, what) in &config.columns {
            let _ = writeln!(md, "| `{name}` | {kind} | {} |", cell(what));
        }
    }
    let (version, at) = &card.made;
    let _ = writeln!(
        md,
        "\n---\n\nWritten by Verity {version} on {at}. The licence above is the one the panel's coordinator gave; the tasks' own sources keep theirs."
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_categories_follow_the_hubs_bounds() {
        assert_eq!(size_category(0), "n<1K");
        assert_eq!(size_category(999), "n<1K");
        assert_eq!(size_category(1_000), "1K<n<10K");
        assert_eq!(size_category(50_000), "10K<n<100K");
    }

    #[test]
    fn yaml_scalars_hold_any_text() {
        assert_eq!(yaml("a: b # c"), "\"a: b # c\"");
        assert_eq!(yaml("line\n\"q\""), "\"line\\n\\\"q\\\"\"");
    }
}
