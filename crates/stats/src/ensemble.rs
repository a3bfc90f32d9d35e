//! Rules that combine several raters' answers to one question about one case into one label,
//! recording who or what decided it.
//!
//! The released SWE-bench Verified annotations were combined by the rule called
//! [`EnsembleRule::MaxSeverity`] here: the maximum over the annotators for the severity questions
//! (`underspecified`, `false_negative`, `other_major_issues`), and for `difficulty` the majority
//! bucket, or the median bucket when all three annotators differ. A case is then filtered out
//! when [`filter_out`] holds.
//!
//! ```
//! use verity_stats::ensemble::{ensemble, EnsembleRule, Procedure, RaterAnswer};
//!
//! let answers = [
//!     RaterAnswer::new("17", 1u8),
//!     RaterAnswer::new("72", 3),
//!     RaterAnswer::new("69", 3),
//! ];
//! let d = ensemble(EnsembleRule::MaxSeverity, "false_negative", &answers, None).expect("answers");
//! assert_eq!((d.value, d.procedure, d.decided_by), (3, Procedure::Maximum, vec!["72".to_owned()]));
//! ```

use std::fmt::Display;

use serde::{Deserialize, Serialize};

/// The questions the maximum applies to under [`EnsembleRule::MaxSeverity`].
pub const SEVERITY_QUESTIONS: [&str; 3] =
    ["underspecified", "false_negative", "other_major_issues"];

/// The question decided by majority, or median when all differ, under
/// [`EnsembleRule::MaxSeverity`].
pub const DIFFICULTY_QUESTION: &str = "difficulty";

/// One rater's answer to the question being combined; `T` is the answer's position on the
/// question's ordered scale (or any ordered value).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaterAnswer<T> {
    /// The rater's name or id.
    pub rater: String,
    /// The answer.
    pub value: T,
}

impl<T> RaterAnswer<T> {
    /// An answer by `rater`.
    pub fn new(rater: impl Into<String>, value: T) -> Self {
        RaterAnswer {
            rater: rater.into(),
            value,
        }
    }
}

/// An adjudicator's decision, which overrides every rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjudication<T> {
    /// Who adjudicated.
    pub adjudicator: String,
    /// The final value.
    pub value: T,
    /// Why.
    pub rationale: String,
}

/// The rule a coordinator picks for combining answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EnsembleRule {
    /// The SWE-bench Verified release: maximum for the severity questions, majority (median
    /// when all differ) for difficulty.
    MaxSeverity,
    /// The value given by more raters than any other value; a tie is refused.
    Majority,
    /// The median answer (the lower of the two middle answers for an even count).
    Median,
    /// Only an adjudicator's decision; refused while there is none.
    Adjudicated,
}

impl EnsembleRule {
    /// The rule's name as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            EnsembleRule::MaxSeverity => "max-severity",
            EnsembleRule::Majority => "majority",
            EnsembleRule::Median => "median",
            EnsembleRule::Adjudicated => "adjudicated",
        }
    }
}

impl std::str::FromStr for EnsembleRule {
    type Err = EnsembleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "max-severity" => Ok(EnsembleRule::MaxSeverity),
            "majority" => Ok(EnsembleRule::Majority),
            "median" => Ok(EnsembleRule::Median),
            "adjudicated" => Ok(EnsembleRule::Adjudicated),
            _ => Err(EnsembleError::UnknownRule {
                given: s.to_owned(),
            }),
        }
    }
}

/// What actually decided a label; the names match the release's
/// `difficulty_ensemble_decision_procedure` column (`majority`, `median`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Procedure {
    /// The highest answer.
    Maximum,
    /// The answer given by the most raters.
    Majority,
    /// The median answer.
    Median,
    /// An adjudicator's decision.
    Adjudicated,
}

impl Procedure {
    /// The procedure's name as the release and Verity's exports spell it.
    pub fn name(self) -> &'static str {
        match self {
            Procedure::Maximum => "maximum",
            Procedure::Majority => "majority",
            Procedure::Median => "median",
            Procedure::Adjudicated => "adjudicated",
        }
    }
}

/// The combined label and its provenance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision<T> {
    /// The label.
    pub value: T,
    /// How it was reached.
    pub procedure: Procedure,
    /// Who decided: for the maximum, the one rater whose answer was taken (the first, in the
    /// given order, among those who gave it); for majority and median, every rater who gave
    /// the chosen value, in the given order; for adjudication, the adjudicator.
    pub decided_by: Vec<String>,
    /// The adjudicator's rationale, for adjudicated decisions.
    pub rationale: Option<String>,
}

/// Why answers could not be combined.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnsembleError {
    /// There is nothing to combine.
    #[error("question '{question}' has no answers to combine")]
    NoAnswers {
        /// The question.
        question: String,
    },
    /// The majority rule met a tie.
    #[error(
        "question '{question}' has no majority: values {values} were each given by {count} raters; adjudicate it or use another rule"
    )]
    NoMajority {
        /// The question.
        question: String,
        /// The tied values, comma-separated.
        values: String,
        /// How many raters gave each of them.
        count: usize,
    },
    /// The adjudicated rule without an adjudication.
    #[error("question '{question}' has not been adjudicated yet, and the rule is 'adjudicated'")]
    NotAdjudicated {
        /// The question.
        question: String,
    },
    /// The max-severity rule only knows the SWE-bench Verified questions.
    #[error(
        "the max-severity rule covers underspecified, false_negative, other_major_issues and difficulty, and question '{question}' is none of them"
    )]
    NotASeverityQuestion {
        /// The question.
        question: String,
    },
    /// A rule name that does not exist.
    #[error("'{given}' is not an ensemble rule; use max-severity, majority, median or adjudicated")]
    UnknownRule {
        /// The text given.
        given: String,
    },
}

/// Combines the answers to one question by `rule`; an adjudication, when given, overrides any
/// rule. Answers are in a meaningful order (for example by rater id): ties for the maximum go
/// to the first rater in that order.
pub fn ensemble<T: Ord + Clone + Display>(
    rule: EnsembleRule,
    question: &str,
    answers: &[RaterAnswer<T>],
    adjudication: Option<&Adjudication<T>>,
) -> Result<Decision<T>, EnsembleError> {
    if let Some(a) = adjudication {
        return Ok(Decision {
            value: a.value.clone(),
            procedure: Procedure::Adjudicated,
            decided_by: vec![a.adjudicator.clone()],
            rationale: Some(a.rationale.clone()),
        });
    }
    if rule == EnsembleRule::Adjudicated {
        return Err(EnsembleError::NotAdjudicated {
            question: question.to_owned(),
        });
    }
    if answers.is_empty() {
        return Err(EnsembleError::NoAnswers {
            question: question.to_owned(),
        });
    }
    match rule {
        EnsembleRule::MaxSeverity if SEVERITY_QUESTIONS.contains(&question) => Ok(maximum(answers)),
        EnsembleRule::MaxSeverity if question == DIFFICULTY_QUESTION => {
            Ok(majority(question, answers).unwrap_or_else(|_| median(answers)))
        }
        EnsembleRule::MaxSeverity => Err(EnsembleError::NotASeverityQuestion {
            question: question.to_owned(),
        }),
        EnsembleRule::Majority => majority(question, answers),
        EnsembleRule::Median => Ok(median(answers)),
        EnsembleRule::Adjudicated => Err(EnsembleError::NotAdjudicated {
            question: question.to_owned(),
        }),
    }
}

/// Combines answers by one procedure, for rules that name the procedure per question (a
/// questionnaire's `[ensemble]` section) rather than by the built-in question names:
/// [`Procedure::Maximum`], [`Procedure::Majority`] (a tie is refused), [`Procedure::Median`];
/// [`Procedure::Adjudicated`] is refused, since only an adjudicator decides that way.
pub fn decide<T: Ord + Clone + Display>(
    procedure: Procedure,
    question: &str,
    answers: &[RaterAnswer<T>],
) -> Result<Decision<T>, EnsembleError> {
    if answers.is_empty() {
        return Err(EnsembleError::NoAnswers {
            question: question.to_owned(),
        });
    }
    match procedure {
        Procedure::Maximum => Ok(maximum(answers)),
        Procedure::Majority => majority(question, answers),
        Procedure::Median => Ok(median(answers)),
        Procedure::Adjudicated => Err(EnsembleError::NotAdjudicated {
            question: question.to_owned(),
        }),
    }
}

/// The SWE-bench Verified filter: a case is dropped when it is underspecified (2 or more), its
/// tests reject valid solutions (false negative 2 or more), or it has another major issue.
pub fn filter_out(underspecified: u8, false_negative: u8, other_major_issues: u8) -> bool {
    underspecified >= 2 || false_negative >= 2 || other_major_issues == 1
}

fn maximum<T: Ord + Clone>(answers: &[RaterAnswer<T>]) -> Decision<T> {
    // `answers` is non-empty here; the fold keeps the first of equal maxima.
    let mut best = &answers[0];
    for a in &answers[1..] {
        if a.value > best.value {
            best = a;
        }
    }
    Decision {
        value: best.value.clone(),
        procedure: Procedure::Maximum,
        decided_by: vec![best.rater.clone()],
        rationale: None,
    }
}

fn raters_with<T: Ord>(answers: &[RaterAnswer<T>], value: &T) -> Vec<String> {
    answers
        .iter()
        .filter(|a| &a.value == value)
        .map(|a| a.rater.clone())
        .collect()
}

fn majority<T: Ord + Clone + Display>(
    question: &str,
    answers: &[RaterAnswer<T>],
) -> Result<Decision<T>, EnsembleError> {
    let mut values: Vec<&T> = answers.iter().map(|a| &a.value).collect();
    values.sort();
    let mut tallies: Vec<(&T, usize)> = Vec::new();
    for v in values {
        match tallies.last_mut() {
            Some((last, n)) if *last == v => *n += 1,
            _ => tallies.push((v, 1)),
        }
    }
    let top = tallies.iter().map(|&(_, n)| n).max().unwrap_or(0);
    let leaders: Vec<&T> = tallies
        .iter()
        .filter(|&&(_, n)| n == top)
        .map(|&(v, _)| v)
        .collect();
    if leaders.len() != 1 {
        return Err(EnsembleError::NoMajority {
            question: question.to_owned(),
            values: leaders
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            count: top,
        });
    }
    let value = leaders[0].clone();
    Ok(Decision {
        decided_by: raters_with(answers, &value),
        value,
        procedure: Procedure::Majority,
        rationale: None,
    })
}

fn median<T: Ord + Clone>(answers: &[RaterAnswer<T>]) -> Decision<T> {
    let mut values: Vec<&T> = answers.iter().map(|a| &a.value).collect();
    values.sort();
    // The lower middle answer for an even count, so the label is always an answer a rater gave.
    let value = values[(values.len() - 1) / 2].clone();
    Decision {
        decided_by: raters_with(answers, &value),
        value,
        procedure: Procedure::Median,
        rationale: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(values: &[(&str, u8)]) -> Vec<RaterAnswer<u8>> {
        values
            .iter()
            .map(|&(r, v)| RaterAnswer::new(r, v))
            .collect()
    }

    #[test]
    fn the_maximum_goes_to_the_first_rater_who_gave_it() {
        let a = answers(&[("65", 2), ("71", 3), ("12", 3)]);
        let d = ensemble(EnsembleRule::MaxSeverity, "underspecified", &a, None).expect("answers");
        assert_eq!(d.value, 3);
        assert_eq!(d.decided_by, vec!["71"]);
        assert_eq!(d.procedure, Procedure::Maximum);
    }

    #[test]
    fn difficulty_takes_the_majority_and_lists_who_gave_it() {
        let a = answers(&[("17", 1), ("72", 1), ("69", 1)]);
        let d = ensemble(EnsembleRule::MaxSeverity, "difficulty", &a, None).expect("answers");
        assert_eq!((d.value, d.procedure), (1, Procedure::Majority));
        assert_eq!(d.decided_by, vec!["17", "72", "69"]);
        let a = answers(&[("90", 2), ("12", 0), ("31", 2)]);
        let d = ensemble(EnsembleRule::MaxSeverity, "difficulty", &a, None).expect("answers");
        assert_eq!(d.decided_by, vec!["90", "31"]);
    }

    #[test]
    fn difficulty_falls_back_to_the_median_when_all_differ() {
        let a = answers(&[("5", 0), ("12", 2), ("8", 1)]);
        let d = ensemble(EnsembleRule::MaxSeverity, "difficulty", &a, None).expect("answers");
        assert_eq!((d.value, d.procedure), (1, Procedure::Median));
        assert_eq!(d.decided_by, vec!["8"]);
    }

    #[test]
    fn the_median_of_an_even_count_is_the_lower_middle_answer() {
        let a = answers(&[("a", 0), ("b", 3), ("c", 1), ("d", 2)]);
        let d = ensemble(EnsembleRule::Median, "difficulty", &a, None).expect("answers");
        assert_eq!(d.value, 1);
    }

    #[test]
    fn a_tie_has_no_majority() {
        let a = answers(&[("a", 0), ("b", 1)]);
        let err = ensemble(EnsembleRule::Majority, "difficulty", &a, None).expect_err("tie");
        assert_eq!(
            err.to_string(),
            "question 'difficulty' has no majority: values 0, 1 were each given by 1 raters; adjudicate it or use another rule"
        );
    }

    #[test]
    fn an_adjudication_overrides_every_rule() {
        let a = answers(&[("a", 0), ("b", 0)]);
        let adj = Adjudication {
            adjudicator: "lead".into(),
            value: 2u8,
            rationale: "the test checks an unstated message".into(),
        };
        for rule in [
            EnsembleRule::MaxSeverity,
            EnsembleRule::Majority,
            EnsembleRule::Median,
            EnsembleRule::Adjudicated,
        ] {
            let d = ensemble(rule, "false_negative", &a, Some(&adj)).expect("adjudicated");
            assert_eq!((d.value, d.procedure), (2, Procedure::Adjudicated));
            assert_eq!(d.decided_by, vec!["lead"]);
            assert_eq!(
                d.rationale.as_deref(),
                Some("the test checks an unstated message")
            );
        }
    }

    #[test]
    fn each_refusal_says_what_is_wrong() {
        let none: Vec<RaterAnswer<u8>> = Vec::new();
        let err = ensemble(EnsembleRule::Median, "difficulty", &none, None).expect_err("empty");
        assert_eq!(
            err.to_string(),
            "question 'difficulty' has no answers to combine"
        );
        let a = answers(&[("a", 0)]);
        let err = ensemble(EnsembleRule::Adjudicated, "difficulty", &a, None)
            .expect_err("no adjudication");
        assert_eq!(
            err.to_string(),
            "question 'difficulty' has not been adjudicated yet, and the rule is 'adjudicated'"
        );
        let err = ensemble(EnsembleRule::MaxSeverity, "annotator_confidence", &a, None)
            .expect_err("not covered");
        assert!(
            err.to_string()
                .contains("question 'annotator_confidence' is none of them")
        );
        let err = "mode".parse::<EnsembleRule>().expect_err("unknown");
        assert_eq!(
            err.to_string(),
            "'mode' is not an ensemble rule; use max-severity, majority, median or adjudicated"
        );
    }

    #[test]
    fn decide_applies_the_named_procedure_to_any_question() {
        let a = answers(&[("a", 1), ("b", 3), ("c", 3)]);
        let d = decide(Procedure::Maximum, "annotator_confidence", &a).expect("answers");
        assert_eq!((d.value, d.decided_by), (3, vec!["b".to_owned()]));
        let d = decide(Procedure::Median, "annotator_confidence", &a).expect("answers");
        assert_eq!(d.value, 3);
        assert!(decide(Procedure::Adjudicated, "x", &a).is_err());
        assert!(decide::<u8>(Procedure::Maximum, "x", &[]).is_err());
    }

    #[test]
    fn the_filter_is_the_release_rule() {
        assert!(!filter_out(1, 1, 0));
        assert!(filter_out(2, 0, 0));
        assert!(filter_out(0, 3, 0));
        assert!(filter_out(0, 0, 1));
    }
}
