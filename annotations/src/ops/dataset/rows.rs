//! The two tables of a published dataset: the tasks (their SWE-bench fields as imported, then
//! the panel's labels) and each rater's annotations, with their columns and how a value becomes
//! a cell; and the raters' stable pseudonyms.

use std::collections::{BTreeMap, HashMap};

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::read::Task;
use crate::export::parquet::{Cell, Column, ColumnKind};
use crate::ops::ensemble::CaseLabels;
use verity_task::case::ValueKind;
use verity_task::questionnaire::{Question, QuestionKind, Questionnaire};

/// The prefix of the panel's columns in the tasks' table.
pub(super) const PANEL: &str = "panel_";

/// The SWE-bench fields every task row has, in the order the Hub's SWE-bench datasets give
/// them; the test lists are JSON texts, as there.
pub(super) const TASK_FIELDS: [&str; 9] = [
    "instance_id",
    "repo",
    "base_commit",
    "problem_statement",
    "hints_text",
    "patch",
    "test_patch",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
];

/// SWE-bench Pro's texts, written when a task has them.
pub(super) const PRO_FIELDS: [&str; 2] = ["requirements", "interface"];

/// What the values of one of the tasks' other fields were, across every task.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Seen {
    strings: bool,
    string_lists: bool,
    ints: bool,
    floats: bool,
    bools: bool,
    other: bool,
}

impl Seen {
    pub(super) fn add(&mut self, kind: ValueKind) {
        match kind {
            ValueKind::Null => {}
            ValueKind::String => self.strings = true,
            ValueKind::Bool => self.bools = true,
            ValueKind::Int => self.ints = true,
            ValueKind::Float => self.floats = true,
            ValueKind::StringList => self.string_lists = true,
            ValueKind::Other => self.other = true,
        }
    }

    /// What both saw.
    pub(super) fn merge(&mut self, other: Seen) {
        self.strings |= other.strings;
        self.string_lists |= other.string_lists;
        self.ints |= other.ints;
        self.floats |= other.floats;
        self.bools |= other.bools;
        self.other |= other.other;
    }

    /// The column that holds every value seen, and whether it holds them as JSON texts (every
    /// value not a string, so that reading decodes each back); a column that mixes strings with
    /// other values keeps the strings and the others' JSON texts.
    fn column(self) -> (ColumnKind, bool) {
        let Seen {
            strings,
            string_lists,
            ints,
            floats,
            bools,
            other,
        } = self;
        let kinds = [strings, string_lists, ints || floats, bools, other]
            .iter()
            .filter(|k| **k)
            .count();
        match () {
            _ if kinds == 0 || (strings && kinds == 1) => (ColumnKind::Text, false),
            _ if string_lists && kinds == 1 => (ColumnKind::TextList, false),
            _ if ints && !floats && kinds == 1 => (ColumnKind::Int, false),
            _ if kinds == 1 && (ints || floats) => (ColumnKind::Float, false),
            _ if bools && kinds == 1 => (ColumnKind::Bool, false),
            _ if strings => (ColumnKind::Text, false),
            _ => (ColumnKind::Text, true),
        }
    }
}

/// A value as a cell of a column of this kind. A text column takes any value (as its JSON
/// text when it is not a string, or always with `json`); the others take their own type.
pub(super) fn cell(kind: ColumnKind, json: bool, value: Option<&Value>) -> Cell {
    match (kind, value) {
        (_, None | Some(Value::Null)) => Cell::Null,
        (ColumnKind::Text, Some(Value::String(s))) if !json => Cell::Text(s.clone()),
        (ColumnKind::Text, Some(v)) => Cell::Text(v.to_string()),
        (ColumnKind::TextList, Some(Value::Array(items))) => Cell::TextList(
            items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned))
                .collect(),
        ),
        (ColumnKind::Int, Some(v)) => v.as_i64().map_or(Cell::Null, Cell::Int),
        (ColumnKind::Float, Some(v)) => v.as_f64().map_or(Cell::Null, Cell::Float),
        (ColumnKind::Bool, Some(v)) => v.as_bool().map_or(Cell::Null, Cell::Bool),
        (ColumnKind::TextList, Some(_)) => Cell::Null,
    }
}

/// The column kind of a question's answers: integers, texts, or JSON texts of mixed options.
pub(super) fn question_kind(question: &Question) -> (ColumnKind, bool) {
    if question.kind == QuestionKind::Text {
        return (ColumnKind::Text, false);
    }
    let mut seen = Seen::default();
    for option in &question.options {
        seen.add(ValueKind::of(&option.value));
    }
    seen.column()
}

fn type_name(kind: ColumnKind, json: bool) -> &'static str {
    match (kind, json) {
        (ColumnKind::Text, true) => "string (JSON)",
        (ColumnKind::Text, false) => "string",
        (ColumnKind::TextList, _) => "list of strings",
        (ColumnKind::Int, _) => "int64",
        (ColumnKind::Float, _) => "float64",
        (ColumnKind::Bool, _) => "bool",
    }
}

/// One column with how its cells are made and what the card says of it.
#[derive(Debug, Clone)]
pub(super) struct Field {
    pub(super) column: Column,
    pub(super) json: bool,
    pub(super) what: String,
}

impl Field {
    fn new(name: &str, kind: ColumnKind, json: bool, what: impl Into<String>) -> Field {
        Field {
            column: Column::new(name, kind),
            json,
            what: what.into(),
        }
    }

    fn repeated(name: &str, kind: ColumnKind, what: impl Into<String>) -> Field {
        Field {
            column: Column::repeated(name, kind),
            json: false,
            what: what.into(),
        }
    }

    /// The card's row: name, type, what it holds.
    pub(super) fn describe(&self) -> (String, String, String) {
        (
            self.column.name.clone(),
            type_name(self.column.kind, self.json).to_string(),
            self.what.clone(),
        )
    }
}

/// The tasks' table: the SWE-bench fields, the other fields the tasks were imported with, the
/// panel's columns.
pub(super) struct TaskTable {
    pub(super) fields: Vec<Field>,
    /// The other fields, by name, with their column's kind and JSON flag.
    extras: Vec<(String, ColumnKind, bool)>,
    pro: bool,
    questions: Vec<(String, ColumnKind, bool)>,
}

impl TaskTable {
    /// The columns for tasks whose other fields were `seen`, with SWE-bench Pro's texts when
    /// some task has them, and the labels of the questionnaire's rated questions.
    pub(super) fn new(
        questionnaire: &Questionnaire,
        seen: &BTreeMap<String, Seen>,
        pro: bool,
    ) -> TaskTable {
        let what = [
            "the task's id",
            "the repository, owner/name",
            "the commit the task starts from",
            "the issue text given to the solver",
            "comments on the issue before the fix",
            "the gold patch",
            "the test patch",
            "tests that fail before the gold patch and pass after it (a JSON list)",
            "tests that pass before and after (a JSON list)",
        ];
        let mut fields: Vec<Field> = TASK_FIELDS
            .iter()
            .zip(what)
            .map(|(name, what)| {
                if *name == "repo" {
                    Field::repeated(name, ColumnKind::Text, what)
                } else {
                    Field::new(name, ColumnKind::Text, false, what)
                }
            })
            .collect();
        if pro {
            fields.push(Field::new(
                "requirements",
                ColumnKind::Text,
                false,
                "SWE-bench Pro's requirements",
            ));
            fields.push(Field::new(
                "interface",
                ColumnKind::Text,
                false,
                "SWE-bench Pro's interface",
            ));
        }
        let mut extras = Vec::new();
        for (name, seen) in seen {
            let (kind, json) = seen.column();
            fields.push(Field::new(
                name,
                kind,
                json,
                "as the task was imported with it",
            ));
            extras.push((name.clone(), kind, json));
        }
        fields.push(Field::new(
            &format!("{PANEL}kept"),
            ColumnKind::Bool,
            false,
            "true when the questionnaire's filter keeps the task, false when it filters it out, null when a label it needs is missing",
        ));
        fields.push(Field::new(
            &format!("{PANEL}filtered_because"),
            ColumnKind::TextList,
            false,
            "the filter's conditions the labels meet (empty when kept)",
        ));
        fields.push(Field::new(
            &format!("{PANEL}raters"),
            ColumnKind::Int,
            false,
            "raters whose latest submitted answers were combined",
        ));
        fields.push(Field::new(
            &format!("{PANEL}agreement"),
            ColumnKind::Float,
            false,
            "the share of agreeing rater pairs over the rated questions (null with fewer than two raters)",
        ));
        let mut questions = Vec::new();
        for q in questionnaire.questions().filter(|q| q.kind.is_rated()) {
            let (kind, json) = question_kind(q);
            let id = &q.id;
            fields.push(Field {
                column: Column::repeated(format!("{PANEL}{id}"), kind),
                json,
                what: format!("the panel's label for {} `{id}`", q.number),
            });
            fields.push(Field::repeated(
                &format!("{PANEL}{id}_rule"),
                ColumnKind::Text,
                "how it was decided: maximum, majority, median or adjudicated",
            ));
            fields.push(Field::new(
                &format!("{PANEL}{id}_agreement"),
                ColumnKind::Float,
                false,
                "the share of agreeing rater pairs on it",
            ));
            fields.push(Field::repeated(
                &format!("{PANEL}{id}_adjudicator"),
                ColumnKind::Text,
                "who adjudicated it, when someone did",
            ));
            fields.push(Field::new(
                &format!("{PANEL}{id}_rationale"),
                ColumnKind::Text,
                false,
                "the adjudicator's rationale",
            ));
            questions.push((id.clone(), kind, json));
        }
        TaskTable {
            fields,
            extras,
            pro,
            questions,
        }
    }

    pub(super) fn columns(&self) -> Vec<Column> {
        self.fields.iter().map(|f| f.column.clone()).collect()
    }

    /// The panel's columns and the columns of JSON texts, for the files' footer: what an
    /// import of the dataset leaves out and what it decodes.
    pub(super) fn footer(&self) -> (String, String) {
        let labels: Vec<&str> = self
            .fields
            .iter()
            .map(|f| f.column.name.as_str())
            .filter(|n| n.starts_with(PANEL))
            .collect();
        let json: Vec<&str> = self
            .extras
            .iter()
            .filter(|(_, _, json)| *json)
            .map(|(n, _, _)| n.as_str())
            .collect();
        (
            super::FOOTER_KEY.to_string(),
            serde_json::json!({ "labels": labels, "json": json }).to_string(),
        )
    }

    /// A task's row: its fields (moved, not copied: a task's texts are most of an export's
    /// bytes), then the panel's.
    pub(super) fn row(&self, case: Task, panel: &TaskPanel<'_>) -> Vec<Cell> {
        let list = |tests: Box<RawValue>| Cell::Text(String::from(Box::<str>::from(tests)));
        let mut cells = vec![
            Cell::Text(case.instance_id),
            Cell::Text(case.repo),
            case.base_commit.map_or(Cell::Null, Cell::Text),
            Cell::Text(case.problem_statement),
            Cell::Text(case.hints_text),
            Cell::Text(case.gold_patch),
            Cell::Text(case.test_patch),
            list(case.fail_to_pass),
            list(case.pass_to_pass),
        ];
        if self.pro {
            cells.push(case.requirements.map_or(Cell::Null, Cell::Text));
            cells.push(case.interface.map_or(Cell::Null, Cell::Text));
        }
        for (name, kind, json) in &self.extras {
            cells.push(cell(*kind, *json, case.extra.get(name)));
        }
        panel.cells(&self.questions, &mut cells);
        cells
    }
}

/// What the panel decided on one task.
pub(super) struct TaskPanel<'a> {
    pub(super) labels: Option<&'a CaseLabels>,
    /// The filter's conditions the labels meet.
    pub(super) because: Vec<String>,
    /// Agreeing pairs and pairs, per question.
    pub(super) pairs: HashMap<&'a str, (usize, usize)>,
    /// Adjudicators' names as published.
    pub(super) names: &'a Pseudonyms,
}

impl TaskPanel<'_> {
    fn cells(&self, questions: &[(String, ColumnKind, bool)], cells: &mut Vec<Cell>) {
        let labels = self.labels;
        let share = |(agree, pairs): (usize, usize)| {
            if pairs == 0 {
                Cell::Null
            } else {
                Cell::Float(agree as f64 / pairs as f64)
            }
        };
        cells.push(
            labels
                .and_then(|l| l.filter_out)
                .map_or(Cell::Null, |out| Cell::Bool(!out)),
        );
        cells.push(match labels.and_then(|l| l.filter_out) {
            Some(_) => Cell::TextList(self.because.clone()),
            None => Cell::Null,
        });
        cells.push(labels.map_or(Cell::Int(0), |l| Cell::Int(l.raters.len() as i64)));
        let pooled = self
            .pairs
            .values()
            .fold((0, 0), |(a, p), (agree, pairs)| (a + agree, p + pairs));
        cells.push(share(pooled));
        for (id, kind, json) in questions {
            let label = labels.and_then(|l| l.labels.iter().find(|l| &l.question == id));
            cells.push(cell(*kind, *json, label.and_then(|l| l.value.as_ref())));
            cells.push(
                label
                    .and_then(|l| l.procedure.clone())
                    .map_or(Cell::Null, Cell::Text),
            );
            cells.push(share(
                self.pairs.get(id.as_str()).copied().unwrap_or_default(),
            ));
            let adjudicated = label.filter(|l| l.procedure.as_deref() == Some("adjudicated"));
            cells.push(
                adjudicated
                    .and_then(|l| l.decided_by.first())
                    .map_or(Cell::Null, |who| Cell::Text(self.names.person(who))),
            );
            cells.push(
                adjudicated
                    .and_then(|l| l.rationale.clone())
                    .map_or(Cell::Null, Cell::Text),
            );
        }
    }
}

/// The annotations' table: one row per task and rater, every question's answer.
pub(super) struct AnnotationTable {
    pub(super) fields: Vec<Field>,
    questions: Vec<(String, ColumnKind, bool)>,
}

/// One rater's latest submitted answer on a task.
pub(super) struct Annotation<'a> {
    pub(super) instance_id: &'a str,
    pub(super) rater: &'a str,
    pub(super) model: Option<&'a str>,
    pub(super) questionnaire: (&'a str, &'a str),
    pub(super) answer_revision: i64,
    pub(super) submitted_at: &'a str,
    pub(super) answer: &'a Map<String, Value>,
}

impl AnnotationTable {
    pub(super) fn new(questionnaire: &Questionnaire) -> AnnotationTable {
        let mut fields = vec![
            Field::new("instance_id", ColumnKind::Text, false, "the task's id"),
            Field::repeated(
                "rater",
                ColumnKind::Text,
                "the rater: a stable pseudonym unless the coordinator named raters",
            ),
            Field::repeated(
                "rater_kind",
                ColumnKind::Text,
                "human, or model for a model rater's machine-generated answer",
            ),
            Field::repeated(
                "model",
                ColumnKind::Text,
                "the model a model rater asked (null for a human)",
            ),
            Field::repeated("questionnaire", ColumnKind::Text, "the questionnaire's id"),
            Field::repeated(
                "questionnaire_version",
                ColumnKind::Text,
                "the version the answer was given under",
            ),
            Field::new(
                "answer_revision",
                ColumnKind::Int,
                false,
                "1 for the first submission, more after revisions",
            ),
            Field::new(
                "submitted_at",
                ColumnKind::Text,
                false,
                "when it was submitted or last revised (RFC 3339)",
            ),
        ];
        let mut questions = Vec::new();
        for q in questionnaire.questions() {
            let (kind, json) = question_kind(q);
            let field = Field {
                column: Column {
                    name: q.id.clone(),
                    kind,
                    dictionary: q.kind.is_rated(),
                },
                json,
                what: format!("{}: {}", q.number, first_line(&q.prompt)),
            };
            fields.push(field);
            questions.push((q.id.clone(), kind, json));
        }
        AnnotationTable { fields, questions }
    }

    pub(super) fn columns(&self) -> Vec<Column> {
        self.fields.iter().map(|f| f.column.clone()).collect()
    }

    pub(super) fn row(&self, a: &Annotation<'_>) -> Vec<Cell> {
        let mut cells = vec![
            Cell::Text(a.instance_id.to_string()),
            Cell::Text(a.rater.to_string()),
            Cell::Text(if a.model.is_some() { "model" } else { "human" }.into()),
            a.model.map_or(Cell::Null, |m| Cell::Text(m.to_string())),
            Cell::Text(a.questionnaire.0.to_string()),
            Cell::Text(a.questionnaire.1.to_string()),
            Cell::Int(a.answer_revision),
            Cell::Text(a.submitted_at.to_string()),
        ];
        for (id, kind, json) in &self.questions {
            cells.push(cell(*kind, *json, a.answer.get(id)));
        }
        cells
    }
}

/// A question's prompt up to its first line break, and at most about 100 characters, for the
/// card's table of fields.
fn first_line(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or_default();
    match line.char_indices().nth(100) {
        Some((cut, _)) => format!("{}…", line[..cut].trim_end()),
        None => line.to_string(),
    }
}

/// The names raters and adjudicators are published under: their own, or stable pseudonyms.
pub(super) struct Pseudonyms {
    project_id: String,
    real: bool,
    names: HashMap<String, String>,
}

/// The SHA-256 of the project's id and a name, in hex.
fn digest(project_id: &str, name: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(project_id.as_bytes());
    hasher.update([0]);
    hasher.update(name.as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Pseudonyms {
    /// With `real`, everyone as the project names them. Otherwise `rater-` (or `model-` for a
    /// model rater) and the first hex digits of the SHA-256 of the project's id and the name:
    /// the same in every export of the project, unguessable without the project, and longer
    /// where two would collide.
    pub(super) fn new(project_id: &str, people: &[(String, bool)], real: bool) -> Pseudonyms {
        if real {
            return Pseudonyms {
                project_id: project_id.to_string(),
                real,
                names: people.iter().map(|(n, _)| (n.clone(), n.clone())).collect(),
            };
        }
        let hashes: Vec<(String, bool, String)> = people
            .iter()
            .map(|(n, model)| (n.clone(), *model, digest(project_id, n)))
            .collect();
        let mut width = 8;
        loop {
            let mut short: Vec<&str> = hashes.iter().map(|(_, _, h)| &h[..width]).collect();
            short.sort_unstable();
            short.dedup();
            if short.len() == hashes.len() || width >= 64 {
                break;
            }
            width += 4;
        }
        Pseudonyms {
            project_id: project_id.to_string(),
            real,
            names: hashes
                .into_iter()
                .map(|(name, model, hash)| {
                    let kind = if model { "model" } else { "rater" };
                    (name, format!("{kind}-{}", &hash[..width]))
                })
                .collect(),
        }
    }

    /// A person's published name; someone the project does not list as a rater (the
    /// coordinator, an adjudicator) gets a pseudonym of the same kind.
    pub(super) fn person(&self, name: &str) -> String {
        match self.names.get(name) {
            Some(published) => published.clone(),
            None if self.real => name.to_string(),
            None => format!("rater-{}", &digest(&self.project_id, name)[..8]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_holds_what_every_task_had() {
        let column = |values: &[Value]| {
            let mut seen = Seen::default();
            values.iter().for_each(|v| seen.add(ValueKind::of(v)));
            seen.column()
        };
        use serde_json::json;
        assert_eq!(
            column(&[json!("a"), json!(null)]),
            (ColumnKind::Text, false)
        );
        assert_eq!(
            column(&[json!(["a"]), json!([])]),
            (ColumnKind::TextList, false)
        );
        assert_eq!(column(&[json!(1), json!(2)]), (ColumnKind::Int, false));
        assert_eq!(column(&[json!(1), json!(2.5)]), (ColumnKind::Float, false));
        assert_eq!(column(&[json!(true)]), (ColumnKind::Bool, false));
        assert_eq!(
            column(&[json!({"a": 1}), json!([1])]),
            (ColumnKind::Text, true)
        );
        assert_eq!(column(&[json!("a"), json!(1)]), (ColumnKind::Text, false));
        assert_eq!(column(&[]), (ColumnKind::Text, false));
    }

    #[test]
    fn two_halves_seen_apart_and_merged_give_the_column_seen_at_once() {
        use serde_json::json;
        let values = [json!(1), json!(2.5), json!("a"), json!(["b"]), json!(true)];
        for cut in 0..=values.len() {
            for other in [json!(null), json!({"c": 1})] {
                let all: Vec<&Value> = values.iter().chain([&other]).collect();
                let (mut first, mut second, mut whole) =
                    (Seen::default(), Seen::default(), Seen::default());
                all.iter().for_each(|v| whole.add(ValueKind::of(v)));
                all[..cut].iter().for_each(|v| first.add(ValueKind::of(v)));
                all[cut..].iter().for_each(|v| second.add(ValueKind::of(v)));
                first.merge(second);
                assert_eq!(first.column(), whole.column(), "cut at {cut}");
            }
        }
        let mut ints = Seen::default();
        ints.add(ValueKind::Int);
        let mut floats = Seen::default();
        floats.add(ValueKind::Float);
        ints.merge(floats);
        assert_eq!(ints.column(), (ColumnKind::Float, false));
    }

    #[test]
    fn pseudonyms_are_stable_per_project_and_mark_models() {
        let people = vec![("ann".to_string(), false), ("gpt".to_string(), true)];
        let a = Pseudonyms::new("p1", &people, false);
        let again = Pseudonyms::new("p1", &people, false);
        let other = Pseudonyms::new("p2", &people, false);
        assert_eq!(a.person("ann"), again.person("ann"));
        assert_ne!(a.person("ann"), other.person("ann"));
        assert!(a.person("ann").starts_with("rater-"), "{}", a.person("ann"));
        assert!(a.person("gpt").starts_with("model-"));
        assert_eq!(a.person("ann").len(), "rater-".len() + 8);
        let named = Pseudonyms::new("p1", &people, true);
        assert_eq!(named.person("ann"), "ann");
    }
}
