//! The panel's submitted answers, loaded once and decoded through the questionnaire, for the
//! coordinator's use cases (agreement, ensembles, disagreements, exports), and one question's
//! units × raters table of them (agreement, each rater's quality).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde_json::Value;

use super::{Project, Result, natural_cmp};
use verity_stats::agreement::{Category, Level, RatingTable};
use verity_store::{AnswerEvent, SubmissionFilter};
use verity_task::questionnaire::{MeasurementLevel, Question, Questionnaire};

/// A position on a question's declared scale, shown as the option's value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Choice {
    pub(super) index: usize,
    pub(super) text: String,
}

impl std::fmt::Display for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

pub(super) fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The index of an answer among the question's options, through the questionnaire's one
/// decoder (an imported `1.0`, a typed `1` and an older Verity's `"1"` are the same option).
pub(super) fn option_index(question: &Question, value: &Value) -> Option<usize> {
    question.option_index(value)
}

/// The question a user names by its id (`underspecified`) or its number (`1.1`), as every
/// command takes it; one that does not exist is refused with the questionnaire's list.
pub(super) fn find_question<'a>(
    questionnaire: &'a Questionnaire,
    key: &str,
) -> Result<&'a Question, super::Error> {
    let key = key.trim();
    questionnaire
        .questions()
        .find(|q| q.id == key || q.number == key)
        .ok_or_else(|| {
            super::Error::NotFound(format!(
                "questionnaire {} has no question {key:?}; its questions are {} (`verity questions` lists them)",
                questionnaire.id,
                questionnaire
                    .questions()
                    .map(|q| format!("{} ({})", q.number, q.id))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}

pub(super) fn rated_questions(questionnaire: &Questionnaire) -> Vec<&Question> {
    questionnaire
        .questions()
        .filter(|q| q.kind.is_rated())
        .collect()
}

pub(super) fn level_of(level: MeasurementLevel) -> Level {
    match level {
        MeasurementLevel::Nominal => Level::Nominal,
        MeasurementLevel::Ordinal => Level::Ordinal,
        MeasurementLevel::Interval => Level::Interval,
        MeasurementLevel::Ratio => Level::Ratio,
    }
}

/// A question's options as the categories of its rating table, each named by its value.
pub(super) fn categories_of(question: &Question) -> Vec<Category> {
    question
        .options
        .iter()
        .map(|o| match o.value.as_f64() {
            Some(v) => Category::labelled_number(value_text(&o.value), v),
            None => Category::label(value_text(&o.value)),
        })
        .collect()
}

/// Distinct answer values [`question_table`] remembers the option of.
const DECODED_VALUES: usize = 64;

/// The units × raters table of one question over some answers.
pub(super) fn question_table(question: &Question, cases: &[CaseAnswers]) -> Result<RatingTable> {
    let mut table = TableBuilder::new(question);
    table.add(cases);
    table.finish()
}

/// One question's units × raters table, built from the panel a slice of cases at a time (the
/// slices in instance-id order): an export reads every answer once, for its rows and for the
/// card's agreement.
pub(super) struct TableBuilder<'q> {
    question: &'q Question,
    /// The cases with an answer on the question, in the order they came.
    units: Vec<String>,
    /// (unit, rater, option) of each answer on the question.
    rated: Vec<(usize, Rc<str>, u32)>,
    /// A panel gives a handful of distinct values per question, so each is decoded once and
    /// remembered.
    decoded: Vec<(Value, Option<usize>)>,
}

impl<'q> TableBuilder<'q> {
    pub(super) fn new(question: &'q Question) -> TableBuilder<'q> {
        TableBuilder {
            question,
            units: Vec::new(),
            rated: Vec::new(),
            decoded: Vec::new(),
        }
    }

    /// The question.
    pub(super) fn question(&self) -> &'q Question {
        self.question
    }

    /// The answers of more cases, which come after those already added.
    pub(super) fn add(&mut self, cases: &[CaseAnswers]) {
        for case in cases {
            let mut unit = None;
            for (rater, event) in &case.answers {
                let Some(value) = event.answer.get(&self.question.id) else {
                    continue;
                };
                let index = match self.decoded.iter().find(|(v, _)| v == value) {
                    Some((_, index)) => *index,
                    None => {
                        let index = option_index(self.question, value);
                        if self.decoded.len() < DECODED_VALUES {
                            self.decoded.push((value.clone(), index));
                        }
                        index
                    }
                };
                let Some(index) = index else {
                    continue;
                };
                let at = *unit.get_or_insert_with(|| {
                    self.units.push(case.instance_id.clone());
                    self.units.len() - 1
                });
                self.rated.push((at, Rc::clone(rater), index as u32));
            }
        }
    }

    /// The table of every answer added: a row per case with one, a column per rater.
    pub(super) fn finish(self) -> Result<RatingTable> {
        let mut raters: Vec<&str> = self
            .rated
            .iter()
            .map(|(_, r, _)| &**r)
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        raters.sort_by(|a, b| natural_cmp(a, b));
        let column: HashMap<&str, usize> =
            raters.iter().enumerate().map(|(i, r)| (*r, i)).collect();
        let width = raters.len();
        let mut cells = vec![None; self.units.len() * width];
        for (unit, rater, index) in &self.rated {
            if let Some(&col) = column.get(&**rater) {
                cells[unit * width + col] = Some(*index);
            }
        }
        Ok(RatingTable::new(
            self.units,
            raters.into_iter().map(str::to_owned).collect(),
            categories_of(self.question),
            level_of(self.question.level),
            cells,
        )?)
    }
}

/// A rater's name (shared by all of their answers) and an answer event of theirs.
pub(super) type RaterEvent = (Rc<str>, Rc<AnswerEvent>);

/// The answers of one case, rater by rater in the order they first submitted.
#[derive(Debug, Clone)]
pub(super) struct CaseAnswers {
    pub(super) case_id: i64,
    pub(super) instance_id: String,
    /// (rater, event) in first-submission order. An answer never revised is the same event in
    /// [`Panel::first`] and [`Panel::latest`], held once.
    pub(super) answers: Vec<RaterEvent>,
}

/// Everything the coordinator's functions read, loaded once.
pub(super) struct Panel {
    pub(super) instance_ids: HashMap<i64, String>,
    pub(super) first: Vec<CaseAnswers>,
    pub(super) latest: Vec<CaseAnswers>,
    pub(super) adjudications: Adjudications,
}

/// The latest adjudication of each question, by case row id then question id: a lookup
/// borrows its keys.
pub(super) type Adjudications = HashMap<i64, HashMap<String, verity_store::AdjudicationRow>>;

/// The events by case in instance-id order, each case's in the order its raters first submitted
/// (`first` holds each (case, rater)'s first submission).
fn group(
    events: Vec<Rc<AnswerEvent>>,
    first: &HashMap<(i64, i64), Rc<AnswerEvent>>,
    raters: &HashMap<i64, Rc<str>>,
    instance_ids: &HashMap<i64, String>,
) -> Vec<CaseAnswers> {
    // Grouped by row id, then the cases sorted once: far fewer comparisons of long ids than
    // finding each event's case among the ids.
    let mut cases: Vec<CaseAnswers> = Vec::new();
    let mut slot: HashMap<i64, usize> = HashMap::new();
    for event in events {
        let Some(instance_id) = instance_ids.get(&event.case_id) else {
            continue;
        };
        let at = *slot.entry(event.case_id).or_insert_with(|| {
            cases.push(CaseAnswers {
                case_id: event.case_id,
                instance_id: instance_id.clone(),
                answers: Vec::new(),
            });
            cases.len() - 1
        });
        let rater = raters
            .get(&event.rater_id)
            .cloned()
            .unwrap_or_else(|| Rc::from(""));
        cases[at].answers.push((rater, event));
    }
    cases.sort_unstable_by(|a, b| a.instance_id.cmp(&b.instance_id));
    fn order<'a>(first: &'a HashMap<(i64, i64), Rc<AnswerEvent>>, e: &'a AnswerEvent) -> &'a str {
        first
            .get(&(e.case_id, e.rater_id))
            .map_or(e.uid.as_str(), |f| f.uid.as_str())
    }
    for case in &mut cases {
        case.answers
            .sort_by(|(_, a), (_, b)| order(first, a).cmp(order(first, b)));
    }
    cases
}

impl Panel {
    /// The latest adjudication of a case's question.
    pub(super) fn adjudication(
        &self,
        case_id: i64,
        question: &str,
    ) -> Option<&verity_store::AdjudicationRow> {
        self.adjudications.get(&case_id)?.get(question)
    }

    /// The panel without the answers of the raters `leave_out` names, its adjudications kept: a
    /// panel loaded with model raters, as the humans alone gave it.
    pub(super) fn without(&self, leave_out: &dyn Fn(&str) -> bool) -> Panel {
        let keep = |cases: &[CaseAnswers]| -> Vec<CaseAnswers> {
            cases
                .iter()
                .filter_map(|case| {
                    let answers: Vec<RaterEvent> = case
                        .answers
                        .iter()
                        .filter(|(rater, _)| !leave_out(rater))
                        .cloned()
                        .collect();
                    (!answers.is_empty()).then(|| CaseAnswers {
                        case_id: case.case_id,
                        instance_id: case.instance_id.clone(),
                        answers,
                    })
                })
                .collect()
        };
        Panel {
            instance_ids: self.instance_ids.clone(),
            first: keep(&self.first),
            latest: keep(&self.latest),
            adjudications: self.adjudications.clone(),
        }
    }

    /// Each case's latest submitted answers, by task id.
    pub(super) fn latest_by_case(&self) -> HashMap<&str, &CaseAnswers> {
        self.latest
            .iter()
            .map(|c| (c.instance_id.as_str(), c))
            .collect()
    }

    /// Every submitted answer with only the values of the scale, choice and yes/no questions:
    /// what agreement, ensembles, disagreements and rater quality read. Free text (notes,
    /// justifications) stays in the store, so a large panel loads in a fraction of the time
    /// and memory.
    pub(super) fn load_rated(project: &Project) -> Result<Panel> {
        Panel::load_rated_of(project, project.include_models)
    }

    /// [`Panel::load_rated`], with model raters' answers or without them whatever the project's
    /// setting.
    pub(super) fn load_rated_of(project: &Project, include_models: bool) -> Result<Panel> {
        let questions: Vec<&str> = rated_questions(&project.questionnaire)
            .iter()
            .map(|q| q.id.as_str())
            .collect();
        let filter = SubmissionFilter {
            cases: None,
            questions: Some(&questions),
        };
        let index = PanelIndex::load(project, include_models)?;
        index.panel(project, &filter, index.instance_ids.clone(), |_| true)
    }

    /// The submitted answers with only the values of `questions`, with model raters' answers or
    /// without them: what an estimate reads of 50,000 tasks' answers, a fraction of the rest.
    pub(super) fn load_questions(
        project: &Project,
        include_models: bool,
        questions: &[&str],
    ) -> Result<Panel> {
        let filter = SubmissionFilter {
            cases: None,
            questions: Some(questions),
        };
        let index = PanelIndex::load(project, include_models)?;
        index.panel(project, &filter, index.instance_ids.clone(), |_| true)
    }

    /// The panel in slices of at most `size` cases, whole answers, in instance-id order (the
    /// order of the cases within every panel): an export writes one slice at a time, so its
    /// memory does not grow with the project.
    pub(super) fn slices(project: &Project, size: usize) -> Result<PanelSlices<'_>> {
        let index = PanelIndex::load(project, project.include_models)?;
        let mut cases = project.store.case_instance_ids()?;
        cases.reverse();
        Ok(PanelSlices {
            project,
            index,
            cases,
            size: size.max(1),
        })
    }
}

/// What every slice of a panel shares: rater names, cases' instance ids, adjudications.
struct PanelIndex {
    names: HashMap<i64, Rc<str>>,
    /// Raters whose answers are left out: the model raters, unless the project includes them.
    excluded: std::collections::HashSet<i64>,
    instance_ids: HashMap<i64, String>,
    adjudications: Adjudications,
}

impl PanelIndex {
    fn load(project: &Project, include_models: bool) -> Result<PanelIndex> {
        let store = &project.store;
        let mut adjudications = Adjudications::new();
        for a in store.latest_adjudications()? {
            adjudications
                .entry(a.case_id)
                .or_default()
                .insert(a.question.clone(), a);
        }
        let excluded = if include_models {
            std::collections::HashSet::new()
        } else {
            super::lookup::model_rater_ids(project)?
        };
        Ok(PanelIndex {
            excluded,
            names: store
                .list_raters()?
                .into_iter()
                .map(|r| (r.id, Rc::from(r.name)))
                .collect(),
            instance_ids: store.case_instance_ids()?.into_iter().collect(),
            adjudications,
        })
    }

    /// The panel of the answers `filter` picks, with `instance_ids` and the adjudications of
    /// the cases `on_case` accepts.
    fn panel(
        &self,
        project: &Project,
        filter: &SubmissionFilter<'_>,
        instance_ids: HashMap<i64, String>,
        on_case: impl Fn(i64) -> bool,
    ) -> Result<Panel> {
        let store = &project.store;
        let decode = |mut event: AnswerEvent| {
            project
                .questionnaire
                .decode_answer_in_place(&mut event.answer);
            Rc::new(event)
        };
        let first: Vec<Rc<AnswerEvent>> = store
            .first_submissions_by(filter)?
            .into_iter()
            .filter(|e| !self.excluded.contains(&e.rater_id))
            .map(decode)
            .collect();
        let by_pair: HashMap<(i64, i64), Rc<AnswerEvent>> = first
            .iter()
            .map(|e| ((e.case_id, e.rater_id), Rc::clone(e)))
            .collect();
        let first = group(first, &by_pair, &self.names, &instance_ids);
        if self.excluded.is_empty() && store.count_submissions(filter)? == by_pair.len() {
            // One submission per pair and no revision: every latest submission is the first.
            return Ok(Panel {
                latest: first.clone(),
                first,
                instance_ids,
                adjudications: self.adjudications_of(on_case),
            });
        }
        // Most answers are never revised, so their latest submission is their first: the
        // latest events are listed without their answers, and only the cases where one differs
        // are read again with them.
        let is_first = |e: &AnswerEvent| {
            by_pair
                .get(&(e.case_id, e.rater_id))
                .filter(|f| f.uid == e.uid)
                .cloned()
        };
        let mut listed = store.latest_submissions_by(&SubmissionFilter {
            cases: filter.cases,
            questions: Some(&[]),
        })?;
        listed.retain(|e| !self.excluded.contains(&e.rater_id));
        let mut revised: Vec<i64> = listed
            .iter()
            .filter(|e| is_first(e).is_none())
            .map(|e| e.case_id)
            .collect();
        revised.dedup();
        // Keyed by (case, rater), not id: a revision saved in between is taken as the latest.
        let mut read_again: HashMap<(i64, i64), AnswerEvent> = if revised.is_empty() {
            HashMap::new()
        } else {
            store
                .latest_submissions_by(&SubmissionFilter {
                    cases: Some(&revised),
                    questions: filter.questions,
                })?
                .into_iter()
                .map(|e| ((e.case_id, e.rater_id), e))
                .collect()
        };
        let mut latest = Vec::with_capacity(listed.len());
        for e in listed {
            match is_first(&e) {
                Some(same) => latest.push(same),
                None => {
                    if let Some(whole) = read_again.remove(&(e.case_id, e.rater_id)) {
                        latest.push(decode(whole));
                    }
                }
            }
        }
        Ok(Panel {
            latest: group(latest, &by_pair, &self.names, &instance_ids),
            first,
            instance_ids,
            adjudications: self.adjudications_of(on_case),
        })
    }

    /// The adjudications of the cases `on_case` accepts.
    fn adjudications_of(&self, on_case: impl Fn(i64) -> bool) -> Adjudications {
        self.adjudications
            .iter()
            .filter(|(case_id, _)| on_case(**case_id))
            .map(|(k, v)| (*k, v.clone()))
            .collect()
    }
}

/// The panel a slice of cases at a time; see [`Panel::slices`].
pub(super) struct PanelSlices<'p> {
    project: &'p Project,
    index: PanelIndex,
    /// The cases still to come, last first.
    cases: Vec<(i64, String)>,
    size: usize,
}

impl Iterator for PanelSlices<'_> {
    type Item = Result<Panel>;

    fn next(&mut self) -> Option<Result<Panel>> {
        if self.cases.is_empty() {
            return None;
        }
        let slice = self
            .cases
            .split_off(self.cases.len().saturating_sub(self.size));
        let ids: Vec<i64> = slice.iter().map(|(id, _)| *id).collect();
        let filter = SubmissionFilter {
            cases: Some(&ids),
            questions: None,
        };
        let instance_ids: HashMap<i64, String> = slice.into_iter().collect();
        let on_case = |case_id| instance_ids.contains_key(&case_id);
        Some(
            self.index
                .panel(self.project, &filter, instance_ids.clone(), on_case),
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_table_built_a_slice_of_cases_at_a_time_is_the_table_of_them_all() {
        let dir = tempfile::tempdir().unwrap();
        let project = crate::ops::open_demo_project(dir.path()).unwrap();
        let panel = Panel::load_rated(&project).unwrap();
        let questions = rated_questions(&project.questionnaire);
        assert!(!questions.is_empty() && panel.first.len() > 2);
        for question in questions {
            let whole = question_table(question, &panel.first).unwrap();
            for cut in [1, panel.first.len() / 2, panel.first.len() - 1] {
                let mut sliced = TableBuilder::new(question);
                sliced.add(&panel.first[..cut]);
                sliced.add(&panel.first[cut..]);
                assert_eq!(
                    sliced.finish().unwrap(),
                    whole,
                    "{} cut at {cut}",
                    question.id
                );
            }
            assert!(!whole.units().is_empty(), "{}", question.id);
        }
    }
}
