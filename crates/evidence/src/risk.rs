//! How strongly each candidate suggests that the tests pin something the solver cannot know,
//! and the task's risk score built from the strongest.
//!
//! A candidate's **strength**, from 0 to 1, starts at 0.5 and moves with what is known of it:
//! - the gold patch adds it and no file of the base commit has it: +0.3 (an author's choice
//!   that the hidden tests check; the strongest sign there is);
//! - the gold patch adds it, and only the base commit's tests or other non-live files have it:
//!   +0.15;
//! - the gold patch does not add it and the base commit's tests already use it: −0.25 (a
//!   fixture's value the code under test passes through, most often);
//! - live code has it, but only far from the change or in tooling files (weak): −0.1;
//! - it is a number: −0.1; a value from a data file: −0.05;
//! - the tests hand it to the code as well as check it (`fed`: they check what they gave):
//!   −0.3; so does a fixture path (only one the gold patch creates or names is a candidate):
//!   it is handed to the code, and the file's content is what the tests exercise;
//! - the tests use it without asserting it (a setup value, a fixture path): −0.2;
//! - a name the gold patch defines is worth 0.6 at most: new names mostly follow the codebase's
//!   naming, so they rank with the values but are never airtight on their own.
//!
//! A candidate is **airtight** (shown red) when the tests assert it, its strength is at least
//! [`AIRTIGHT`], no live file has it at all, and the report is complete.
//!
//! The task's **risk**, from 0 to 1, weighs two things: its three strongest candidates taken as
//! independent chances, `1 − Π(1 − strength)` (weight [`CANDIDATE_WEIGHT`]), and the share of
//! its asserted values (strings and numbers) that neither the prose states nor live code near
//! the change has (the rest). It is rounded to thousandths. The drivers are those candidates,
//! each with its reason in words; the summary gives the share.
//!
//! A **sweep** of the task (`verity sweep`) moves the risk where the repository settled the
//! unstated choice, by its proposals' tiers ([`with_sweep`]): a tier that shows the tests pin one
//! of several live ways (codebase-plural), a value the codebase contradicts (misdetermined) or a
//! value found nowhere (airtight) raises the risk to at least that tier's floor and flags the task
//! red; one live way that gold follows (determined-codebase) caps it; `unsettled` leaves it as
//! the terms made it. A raising tier wins over a lowering one.

use super::report::{TermClass, TermEvidence};
use super::sweep::Tier;
use super::terms::{TermKind, TermRole, TermSource};

/// The strength from which an asserted candidate with no live file is airtight.
pub(crate) const AIRTIGHT: f64 = 0.7;
/// Candidates that make up the risk score.
const DRIVERS: usize = 3;
/// The candidates' part of the risk score; the unexplained share of asserted values has the
/// rest.
pub(crate) const CANDIDATE_WEIGHT: f64 = 0.8;
/// What a value loses when the tests hand it to the code as well as check it.
const ECHO_PENALTY: f64 = 0.3;
/// The most a name the gold patch defines is worth.
const GOLD_NAME_CAP: f64 = 0.6;

/// A candidate's strength and the reasons for it, in words.
pub(crate) fn strength(term: &TermEvidence) -> (f64, String) {
    let mut value: f64 = 0.5;
    let mut reasons: Vec<String> = Vec::new();
    let asserted = term.role == TermRole::Asserted;
    let what = match (term.kind, term.source, asserted) {
        (_, TermSource::GoldDefined, _) => {
            "a name the solver must guess: the tests use it, the gold patch defines it, the prose never names it"
        }
        (_, TermSource::PatternRun, _) => "a literal part of a pattern the tests match",
        (_, TermSource::DataValue, true) => {
            "a value of a data or expected-output file the tests read"
        }
        (_, TermSource::DataValue, false) => "a value of a data file",
        (TermKind::Number, _, true) => "an asserted number",
        (TermKind::Number, _, false) => "a number",
        (_, _, true) => "an asserted string",
        (_, _, false) => "a string",
    };
    reasons.push(what.to_string());
    match term.class {
        TermClass::GoldIntroduced => {
            value += 0.3;
            reasons.push("the gold patch adds it and no file of the base commit has it".into());
        }
        _ if term.in_gold => {
            value += 0.15;
            reasons.push("the gold patch adds it".into());
        }
        _ if !term.test_paths.is_empty() => {
            value -= 0.25;
            let files = term.test_paths.len();
            let noun = if files == 1 { "file" } else { "files" };
            reasons.push(format!(
                "the base commit's tests already have it ({files} {noun})"
            ));
        }
        _ => reasons.push("only the test patch has it".into()),
    }
    if let Some(grade) = term.nearest_grade {
        value -= 0.1;
        reasons.push(format!(
            "live code has it only in {} files ({})",
            grade.as_str(),
            term.live_paths.len()
        ));
    } else {
        reasons.push("no live file has it".into());
    }
    match (term.kind, term.source) {
        (_, TermSource::GoldDefined) => value = value.min(GOLD_NAME_CAP),
        (_, TermSource::DataValue) => value -= 0.05,
        (TermKind::Number, _) => value -= 0.1,
        _ => {}
    }
    if term.fed && asserted {
        value -= ECHO_PENALTY;
        reasons.push("the tests also pass it to the code".into());
    } else if term.role == TermRole::FixturePath {
        value -= ECHO_PENALTY;
        reasons.push("a file path the tests hand to the code".into());
    }
    if !asserted && term.source != TermSource::GoldDefined {
        value -= 0.2;
        reasons.push("the tests use it without asserting it".into());
    }
    let value = (value.clamp(0.0, 0.99) * 1000.0).round() / 1000.0;
    (value, reasons.join("; "))
}

/// The least risk of a task whose sweep found the codebase making the choice two or more live
/// ways: the tests grade one of them. Chosen on the development repositories of
/// `bench/audit.sh` (flipt, NodeBB, vuls): AUROC 0.782 at 0.85, 0.798 at 0.9, 0.812 at 0.95,
/// 0.811 at 0.99.
pub(crate) const PLURAL_FLOOR: f64 = 0.95;
/// The least risk of a task whose graded value is in neither the prose nor live code.
pub(crate) const AIRTIGHT_FLOOR: f64 = 0.97;
/// The least risk of a task whose codebase settles the choice one way and the tests grade
/// another.
pub(crate) const MISDETERMINED_FLOOR: f64 = 0.99;
/// The most risk of a task whose codebase settles the choice one way that gold follows.
pub(crate) const DETERMINED_CAP: f64 = 0.2;

/// What a sweep did to a task's risk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweepEffect {
    /// The tier that decided it: the raising tier with the highest floor, else
    /// determined-codebase, else unsettled.
    pub tier: Tier,
    /// The risk before, from the terms (`None`: no current report).
    pub evidence_risk: Option<f64>,
    /// The risk after.
    pub risk: Option<f64>,
    /// Whether the sweep flags the task red.
    pub red: bool,
}

/// A task's risk from its terms' risk and its sweep's tiers (one per proposal).
pub fn with_sweep(evidence_risk: Option<f64>, tiers: &[Tier]) -> Option<SweepEffect> {
    let floor = |tier: Tier| match tier {
        Tier::Misdetermined => Some(MISDETERMINED_FLOOR),
        Tier::Airtight => Some(AIRTIGHT_FLOOR),
        Tier::CodebasePlural => Some(PLURAL_FLOOR),
        Tier::DeterminedCodebase | Tier::Unsettled => None,
    };
    let raising = tiers
        .iter()
        .filter_map(|&t| floor(t).map(|f| (t, f)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let (tier, risk, red) = match raising {
        Some((tier, f)) => (tier, Some(evidence_risk.map_or(f, |r| r.max(f))), true),
        None if tiers.contains(&Tier::DeterminedCodebase) => (
            Tier::DeterminedCodebase,
            Some(evidence_risk.map_or(DETERMINED_CAP, |r| r.min(DETERMINED_CAP))),
            false,
        ),
        None => (*tiers.first()?, evidence_risk, false),
    };
    Some(SweepEffect {
        tier,
        evidence_risk,
        risk,
        red,
    })
}

/// Whether a candidate of this strength is airtight.
pub(crate) fn is_airtight(term: &TermEvidence, strength: f64, complete: bool) -> bool {
    complete
        && term.role == TermRole::Asserted
        && term.source != TermSource::GoldDefined
        && strength >= AIRTIGHT
        && term.live_paths.is_empty()
}

/// Whether the term is an asserted value: a string or number the tests check.
pub(crate) fn is_asserted_value(term: &TermEvidence) -> bool {
    term.role == TermRole::Asserted && term.kind != TermKind::Identifier
}

/// Whether the prose does not state the term and no live file near the change has it.
pub(crate) fn absent_near_change(term: &TermEvidence) -> bool {
    !term.in_prose && (term.live_paths.is_empty() || term.weak)
}

/// Whether an asserted value is unexplained: absent near the change.
pub(crate) fn is_unexplained(term: &TermEvidence) -> bool {
    is_asserted_value(term) && absent_near_change(term)
}

/// The risk score from the candidates' strengths, strongest first, and the unexplained share
/// of asserted values; with how many candidates drive it.
pub(crate) fn combine(strengths: impl IntoIterator<Item = f64>, unexplained: f64) -> (f64, usize) {
    let mut stay = 1.0;
    let mut used = 0;
    for s in strengths.into_iter().take(DRIVERS) {
        stay *= 1.0 - s;
        used += 1;
    }
    let risk = CANDIDATE_WEIGHT * (1.0 - stay) + (1.0 - CANDIDATE_WEIGHT) * unexplained;
    ((risk * 1000.0).round() / 1000.0, used)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::HitGrade;
    use crate::terms::TermOrigin;

    fn term(class: TermClass, in_gold: bool, role: TermRole) -> TermEvidence {
        TermEvidence {
            term: "Max-Age=0".into(),
            kind: TermKind::String,
            role,
            source: TermSource::PatternRun,
            class,
            origin: TermOrigin {
                file: "build/testing/integration/api.sh".into(),
                patch_line: 75,
                file_line: 40,
            },
            occurrences: 1,
            fed: false,
            in_prose: false,
            in_gold,
            live_paths: Vec::new(),
            test_paths: Vec::new(),
            nearest_grade: None,
            weak: false,
            count: 0,
            hits: Vec::new(),
            receipt: String::new(),
            live_receipt: String::new(),
        }
    }

    #[test]
    fn strength_follows_what_is_known_of_a_candidate() {
        let gold = term(TermClass::GoldIntroduced, true, TermRole::Asserted);
        let (value, reason) = strength(&gold);
        assert_eq!(value, 0.8);
        assert!(
            reason
                .starts_with("a literal part of a pattern the tests match; the gold patch adds it"),
            "{reason}"
        );
        assert!(is_airtight(&gold, value, true));
        assert!(
            !is_airtight(&gold, value, false),
            "not while objects are missing"
        );

        let mut fixture = term(TermClass::TestOnly, false, TermRole::Asserted);
        fixture.test_paths = vec!["tests/a_test.go".into()];
        assert_eq!(strength(&fixture).0, 0.25);

        let mut weak = term(TermClass::Codebase, true, TermRole::Asserted);
        weak.live_paths = vec![".goreleaser.yml".into()];
        weak.nearest_grade = Some(HitGrade::NonCode);
        weak.weak = true;
        let (value, reason) = strength(&weak);
        assert_eq!(value, 0.55);
        assert!(reason.contains("only in non-code files (1)"), "{reason}");
        assert!(!is_airtight(&weak, value, true), "live code has it");

        let setup = term(TermClass::GoldIntroduced, true, TermRole::Other);
        let (value, reason) = strength(&setup);
        assert_eq!(value, 0.6);
        assert!(
            reason.ends_with("the tests use it without asserting it"),
            "{reason}"
        );
        assert!(!is_airtight(&setup, 0.9, true), "never airtight unasserted");

        let mut name = term(TermClass::GoldIntroduced, true, TermRole::Asserted);
        name.kind = TermKind::Identifier;
        name.source = TermSource::GoldDefined;
        assert_eq!(strength(&name).0, GOLD_NAME_CAP);
    }

    #[test]
    fn risk_combines_the_three_strongest_as_independent_chances() {
        assert_eq!(combine([], 0.0), (0.0, 0));
        assert_eq!(combine([0.8], 0.0), (0.64, 1));
        assert_eq!(combine([0.5, 0.5], 0.0), (0.6, 2));
        assert_eq!(
            combine([0.5, 0.5, 0.5, 0.9], 0.0),
            (0.7, 3),
            "only three count"
        );
        assert_eq!(
            combine([], 1.0),
            (0.2, 0),
            "every asserted value unexplained"
        );
        assert_eq!(combine([0.99], 1.0), (0.992, 1));
    }

    #[test]
    fn a_sweep_raises_caps_or_keeps_the_risk_by_its_tiers() {
        let effect =
            |risk, tiers: &[Tier]| with_sweep(risk, tiers).map(|e| (e.tier, e.risk, e.red));
        assert_eq!(effect(Some(0.3), &[]), None, "no sweep, no effect");
        assert_eq!(
            effect(Some(0.3), &[Tier::CodebasePlural]),
            Some((Tier::CodebasePlural, Some(PLURAL_FLOOR), true))
        );
        assert_eq!(
            effect(Some(0.96), &[Tier::CodebasePlural]),
            Some((Tier::CodebasePlural, Some(0.96), true)),
            "a floor never lowers"
        );
        assert_eq!(
            effect(None, &[Tier::Airtight]),
            Some((Tier::Airtight, Some(AIRTIGHT_FLOOR), true)),
            "a sweep scores a task with no current report"
        );
        assert_eq!(
            effect(Some(0.1), &[Tier::CodebasePlural, Tier::Misdetermined]),
            Some((Tier::Misdetermined, Some(MISDETERMINED_FLOOR), true)),
            "the highest floor decides"
        );
        assert_eq!(
            effect(Some(0.7), &[Tier::DeterminedCodebase]),
            Some((Tier::DeterminedCodebase, Some(DETERMINED_CAP), false))
        );
        assert_eq!(
            effect(Some(0.05), &[Tier::DeterminedCodebase]),
            Some((Tier::DeterminedCodebase, Some(0.05), false)),
            "a cap never raises"
        );
        assert_eq!(
            effect(Some(0.7), &[Tier::DeterminedCodebase, Tier::CodebasePlural]),
            Some((Tier::CodebasePlural, Some(PLURAL_FLOOR), true)),
            "raising wins over lowering"
        );
        assert_eq!(
            effect(Some(0.7), &[Tier::Unsettled]),
            Some((Tier::Unsettled, Some(0.7), false)),
            "unsettled keeps the terms' risk"
        );
    }
}
