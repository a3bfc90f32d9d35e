//! The alternative annotator test (Calderon, Reichart and Dror, 2025, "The Alternative Annotator
//! Test for LLM-as-a-Judge: How to Statistically Justify Replacing Human Annotators with LLMs",
//! ACL 2025): can a model take the place of one of the panel's humans on one question?
//!
//! What [`alt_test`] computes, following the authors' published algorithm (their `alt_test`
//! function):
//!
//! 1. **Tasks used**: a task takes part when the model labelled it and at least
//!    [`MIN_HUMANS_PER_TASK`] (2) humans did; `n_cases` counts them. Other tasks are dropped, as
//!    the authors' code drops them.
//! 2. **Humans tested**: a human is tested when they rated at least [`MIN_TASKS_PER_HUMAN`] (30)
//!    of those tasks, the size at which the paper relies on the t-test's normal approximation.
//!    A human below it is left out of the test and listed with the reason (the authors' code
//!    skips them the same way); the winning rate counts only the humans tested. When no human
//!    is tested, or the panel has fewer than two humans or no usable task, the test is refused
//!    with a sentence saying why.
//! 3. **Alignment** of a label with the other humans' labels on a task (every human but the one
//!    left out who rated it): on a nominal question, accuracy, the share of those labels it
//!    equals; on an ordered question (ordinal, interval, ratio), the negative root mean squared
//!    difference from them, in the categories' numeric values when every category has one and
//!    in their positions in the scale otherwise (the paper's `neg_rmse`). The two alignments of
//!    a task have the same number of other labels, so they are compared exactly on the count of
//!    equal labels and on the sum of squared differences.
//! 4. **Leave one human out**: for each tested human `j` and each task `i` they rated, the model
//!    wins when its alignment is at least the human's (`W_model = 1`), the human wins when theirs
//!    is at least the model's (`W_human = 1`): a tie is a win for both. `d_i = W_human − W_model`
//!    is −1, 0 or 1.
//! 5. **One-sided paired t-test with margin ε** per human: H0 `p_model ≤ p_human − ε` against H1
//!    `p_model > p_human − ε`, that is a one-sample t-test of the `d_i` against the mean `ε`
//!    with the alternative "less" (scipy's `ttest_1samp(d, ε, alternative="less")`):
//!    `t = (mean(d) − ε) / (s / √n)` with `s` the sample standard deviation (`n − 1` in the
//!    denominator), `p = F_{n−1}(t)`, `F` the Student t distribution function. When every `d_i`
//!    is the same, `s = 0`: `p` is 0 when `mean(d) < ε`, 1 when `mean(d) > ε`, and undefined
//!    (never rejected) when they are equal, as scipy gives `−∞`, `+∞` and NaN there.
//! 6. **Benjamini–Yekutieli** across the tested humans at `q` = [`FDR_LEVEL`] (0.05): with `m`
//!    humans, `H_m = Σ_{k=1..m} 1/k` and the p-values in increasing order, the nulls of the first
//!    `k*` are rejected, `k*` the largest rank `k` with `p_(k) ≤ (k / m) · (q / H_m)`.
//! 7. **Winning rate** `ω` = rejected nulls / humans tested; the model **passes** when
//!    `ω ≥ 0.5`. The **advantage probability** `ρ` is the mean over the tested humans of the share
//!    of their tasks the model won, the paper's measure for ranking models.
//!
//! ε defaults to [`DEFAULT_EPSILON`] (0.2, the paper's value for expert annotators) and is a
//! caller's choice in `[0, 1]`.
//!
//! Beside the test, [`ModelAgreement`] places the model in the panel with the coefficients this
//! module already has, each with a percentile bootstrap interval ([`bootstrap_ci`]): Cohen's
//! kappa (linearly weighted on ordered questions, unweighted on nominal ones) of the model against
//! the humans' consensus label, and Krippendorff's alpha of the humans alone and with the model
//! as one more rater. The consensus is the rule [`super::quality::leave_one_out`] uses (the lower
//! median of the humans' labels on ordered questions, their most frequent label, the lower on a
//! tie, on nominal ones), over every task with the model's label and at least one human's: these
//! are choices of Verity's, the paper reports no such figures.
//!
//! `bench/alt_test_reference.py` implements the paper's algorithm in Python (numpy, scipy,
//! statsmodels); `bench/alt_test.sh` checks this module against it on generated panels, and the
//! integration tests against the committed values in
//! `annotations/tests/fixtures/agreement/alt_test_reference.json`.

use serde::{Deserialize, Serialize};

use super::quality::{consensus, weights_for};
use super::{
    AgreementError, BootstrapOptions, Coefficient, ConfidenceInterval, Level, Method, RatingTable,
    Undefined, bootstrap_ci, cohen_kappa, krippendorff_alpha,
};

/// The margin ε the paper recommends for expert annotators.
pub const DEFAULT_EPSILON: f64 = 0.2;
/// The false discovery rate the Benjamini–Yekutieli procedure controls.
pub const FDR_LEVEL: f64 = 0.05;
/// Usable tasks a human needs to be tested.
pub const MIN_TASKS_PER_HUMAN: usize = 30;
/// Humans' labels a task needs to be usable.
pub const MIN_HUMANS_PER_TASK: usize = 2;
/// The winning rate at which the model passes.
pub const PASSING_RATE: f64 = 0.5;

/// The test's settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AltTestOptions {
    /// The margin ε, in `[0, 1]`: how much worse than a human the model may align and still win.
    pub epsilon: f64,
    /// How the agreement figures' intervals are bootstrapped.
    pub bootstrap: BootstrapOptions,
}

impl Default for AltTestOptions {
    fn default() -> Self {
        AltTestOptions {
            epsilon: DEFAULT_EPSILON,
            bootstrap: BootstrapOptions::default(),
        }
    }
}

/// How a label's alignment with the other humans is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Alignment {
    /// The share of the other humans' labels it equals (nominal questions).
    Accuracy,
    /// The negative root mean squared difference from them (ordered questions).
    NegativeRmse,
}

impl Alignment {
    /// Accuracy on a nominal question, negative RMSE on an ordered one.
    pub fn for_level(level: Level) -> Self {
        match level {
            Level::Nominal => Alignment::Accuracy,
            _ => Alignment::NegativeRmse,
        }
    }

    /// The alignment's name as the output prints it.
    pub fn name(self) -> &'static str {
        match self {
            Alignment::Accuracy => "accuracy",
            Alignment::NegativeRmse => "negative RMSE",
        }
    }
}

/// One tested human against the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HumanTest {
    /// The share of the human's tasks on which the model aligned at least as well as the human.
    pub model_wins: f64,
    /// The share on which the human aligned at least as well as the model.
    pub human_wins: f64,
    /// The one-sided p-value of H0 `p_model ≤ p_human − ε`.
    pub p_value: Result<f64, Undefined>,
    /// Whether Benjamini–Yekutieli rejects this human's null: the model wins against them.
    pub rejected: bool,
}

/// One human of the panel in the test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HumanComparison {
    /// The human rater.
    pub rater: String,
    /// Usable tasks this human rated.
    pub tasks: usize,
    /// The comparison, or why this human was left out of the test.
    pub test: Result<HumanTest, Undefined>,
}

/// The test's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Humans tested.
    pub humans_tested: usize,
    /// Humans whose null was rejected.
    pub humans_won: usize,
    /// `humans_won / humans_tested`: the paper's ω.
    pub winning_rate: f64,
    /// Whether `ω ≥ 0.5`.
    pub passed: bool,
    /// The mean over the tested humans of [`HumanTest::model_wins`]: the paper's ρ.
    pub advantage_probability: f64,
}

/// A coefficient with its bootstrap interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// The point estimate.
    pub estimate: Coefficient,
    /// Its percentile bootstrap interval.
    pub ci: Result<ConfidenceInterval, Undefined>,
}

/// The model's agreement with the panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelAgreement {
    /// Cohen's kappa of the model against the humans' consensus label.
    pub kappa_vs_consensus: Figure,
    /// Krippendorff's alpha of the humans alone.
    pub alpha_humans: Figure,
    /// Krippendorff's alpha with the model as one more rater.
    pub alpha_with_model: Figure,
}

/// The alternative annotator test of one model on one question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AltTest {
    /// The margin ε.
    pub epsilon: f64,
    /// How alignment was scored.
    pub alignment: Alignment,
    /// Tasks used: the model's label and at least two humans' labels.
    pub n_cases: usize,
    /// Every human of the panel, in the table's order.
    pub humans: Vec<HumanComparison>,
    /// The outcome, or why the panel is too small for the test.
    pub verdict: Result<Verdict, Undefined>,
    /// The model's agreement with the panel.
    pub agreement: ModelAgreement,
}

impl AltTest {
    /// One sentence saying how the test was run, for the output to print beside the figures.
    pub fn method(&self) -> String {
        format!(
            "alternative annotator test (Calderon, Reichart and Dror, 2025): each human left out in turn, \
             the model's and that human's {} against the remaining humans (a tie is a win for both), \
             a one-sided paired t-test per human with margin ε = {}, Benjamini–Yekutieli at q = {FDR_LEVEL} \
             across humans, on the tasks with the model's label and at least {MIN_HUMANS_PER_TASK} humans' \
             labels and the humans with at least {MIN_TASKS_PER_HUMAN} of them; passed when the winning rate \
             is at least {PASSING_RATE}",
            self.alignment.name(),
            self.epsilon
        )
    }
}

/// Runs the alternative annotator test of the model named `model`, whose label of unit `u` of
/// `humans` is `labels[u]`, against the humans of `humans`. See the module documentation for
/// what is computed.
///
/// Errors when ε is outside `[0, 1]`, the bootstrap options are invalid, `labels` does not have
/// one entry per unit, a label is outside the scale, or the model's name is a human's.
pub fn alt_test(
    humans: &RatingTable,
    model: &str,
    labels: &[Option<u32>],
    options: &AltTestOptions,
) -> Result<AltTest, AgreementError> {
    let epsilon = options.epsilon;
    if !(0.0..=1.0).contains(&epsilon) {
        return Err(AgreementError::Epsilon { given: epsilon });
    }
    options.bootstrap.validate()?;
    let units = humans.units().len();
    if labels.len() != units {
        return Err(AgreementError::ModelLabelCount {
            labels: labels.len(),
            units,
        });
    }
    let pooled = with_model(humans, model, labels)?;
    let alignment = Alignment::for_level(humans.level());
    let values: Vec<f64> = if humans.is_numeric() {
        humans.categories().iter().filter_map(|c| c.value).collect()
    } else {
        (0..humans.categories().len()).map(|i| i as f64).collect()
    };
    let used: Vec<usize> = (0..units)
        .filter(|&u| {
            labels[u].is_some() && humans.row(u).iter().flatten().count() >= MIN_HUMANS_PER_TASK
        })
        .collect();
    let mut comparisons = Vec::with_capacity(humans.raters().len());
    for (h, name) in humans.raters().iter().enumerate() {
        let tasks: Vec<usize> = used
            .iter()
            .copied()
            .filter(|&u| humans.rating(u, h).is_some())
            .collect();
        let test = if tasks.len() < MIN_TASKS_PER_HUMAN {
            Err(Undefined::new(format!(
                "{name} rated {} of the {} usable tasks, fewer than the {MIN_TASKS_PER_HUMAN} the t-test needs, so this human is left out of the test",
                tasks.len(),
                used.len()
            )))
        } else {
            Ok(leave_out(
                humans, h, labels, &tasks, alignment, &values, epsilon,
            ))
        };
        comparisons.push(HumanComparison {
            rater: name.clone(),
            tasks: tasks.len(),
            test,
        });
    }
    let verdict = verdict(humans, &used, &mut comparisons);
    Ok(AltTest {
        epsilon,
        alignment,
        n_cases: used.len(),
        humans: comparisons,
        verdict,
        agreement: model_agreement(humans, &pooled, labels, &options.bootstrap)?,
    })
}

/// The humans' table with the model as one more rater, which also checks the model's labels
/// against the scale and its name against the humans'.
fn with_model(
    humans: &RatingTable,
    model: &str,
    labels: &[Option<u32>],
) -> Result<RatingTable, AgreementError> {
    let mut raters = humans.raters().to_vec();
    raters.push(model.to_owned());
    let cells = (0..humans.units().len())
        .flat_map(|u| {
            humans
                .row(u)
                .iter()
                .copied()
                .chain(std::iter::once(labels[u]))
        })
        .collect();
    RatingTable::new(
        humans.units().to_vec(),
        raters,
        humans.categories().to_vec(),
        humans.level(),
        cells,
    )
}

/// Human `h` left out on `tasks`: the win shares and the t-test's p-value (BY decides later).
fn leave_out(
    humans: &RatingTable,
    h: usize,
    labels: &[Option<u32>],
    tasks: &[usize],
    alignment: Alignment,
    values: &[f64],
    epsilon: f64,
) -> HumanTest {
    let (mut model_wins, mut human_wins) = (0u64, 0u64);
    for &u in tasks {
        let (Some(own), Some(model)) = (humans.rating(u, h), labels[u]) else {
            continue;
        };
        let rest: Vec<u32> = humans
            .row(u)
            .iter()
            .enumerate()
            .filter(|&(r, _)| r != h)
            .filter_map(|(_, c)| *c)
            .collect();
        // Larger is better for both scores: equal labels, or minus the squared differences.
        let score = |label: u32| -> f64 {
            match alignment {
                Alignment::Accuracy => rest.iter().filter(|&&c| c == label).count() as f64,
                Alignment::NegativeRmse => -rest
                    .iter()
                    .map(|&c| {
                        let d = values[label as usize] - values[c as usize];
                        d * d
                    })
                    .sum::<f64>(),
            }
        };
        let (model_score, human_score) = (score(model), score(own));
        model_wins += u64::from(model_score >= human_score);
        human_wins += u64::from(human_score >= model_score);
    }
    let n = tasks.len() as f64;
    let (model_share, human_share) = (model_wins as f64 / n, human_wins as f64 / n);
    HumanTest {
        model_wins: model_share,
        human_wins: human_share,
        p_value: paired_t_test(tasks.len() as u64, human_wins, model_wins, epsilon),
        rejected: false,
    }
}

/// The p-value of the one-sided t-test of `d_i = W_human − W_model` against the mean `epsilon`
/// (alternative: less), from the counts of wins over `n` tasks.
///
/// Every task counts towards at least one side, so `d_i` is 1 on `n − model_wins` tasks, −1 on
/// `n − human_wins` and 0 on the rest; the mean and the sum of squared deviations are computed
/// from those counts exactly.
fn paired_t_test(n: u64, human_wins: u64, model_wins: u64, epsilon: f64) -> Result<f64, Undefined> {
    let plus = n - model_wins;
    let minus = n - human_wins;
    let nf = n as f64;
    let mean = (plus as f64 - minus as f64) / nf;
    // n · Σ (d_i − mean)² = n (plus + minus) − (plus − minus)², an integer.
    let spread =
        i128::from(n) * i128::from(plus + minus) - (i128::from(plus) - i128::from(minus)).pow(2);
    if spread == 0 {
        return if mean < epsilon {
            Ok(0.0)
        } else if mean > epsilon {
            Ok(1.0)
        } else {
            Err(Undefined::new(format!(
                "every task has the same difference between the human's and the model's wins, equal to ε = {epsilon}, so the t statistic is undefined"
            )))
        };
    }
    let variance = spread as f64 / nf / (nf - 1.0);
    let t = (mean - epsilon) / (variance / nf).sqrt();
    Ok(crate::student::cdf(t, nf - 1.0))
}

/// Benjamini–Yekutieli across the tested humans, then ω and ρ; or why there is no test.
fn verdict(
    humans: &RatingTable,
    used: &[usize],
    comparisons: &mut [HumanComparison],
) -> Result<Verdict, Undefined> {
    let n_humans = humans.raters().len();
    if n_humans < MIN_HUMANS_PER_TASK {
        return Err(Undefined::new(format!(
            "the alternative annotator test needs at least {MIN_HUMANS_PER_TASK} human raters, and the panel has {n_humans}"
        )));
    }
    if used.is_empty() {
        return Err(Undefined::new(format!(
            "no task has both the model's label and labels from at least {MIN_HUMANS_PER_TASK} humans"
        )));
    }
    // Tested humans by p-value, an undefined one last (never rejected).
    let mut order: Vec<(usize, Option<f64>)> = comparisons
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            c.test
                .as_ref()
                .ok()
                .map(|t| (i, t.p_value.as_ref().ok().copied()))
        })
        .collect();
    let m = order.len();
    if m == 0 {
        let (most, by) = comparisons
            .iter()
            .rev()
            .map(|c| (c.tasks, c.rater.as_str()))
            .max_by_key(|&(tasks, _)| tasks)
            .unwrap_or((0, ""));
        return Err(Undefined::new(format!(
            "no human rated {MIN_TASKS_PER_HUMAN} or more of the {} tasks with the model's label and at least {MIN_HUMANS_PER_TASK} humans' labels (the most is {most}, by {by}), and the t-test needs {MIN_TASKS_PER_HUMAN} per human",
            used.len()
        )));
    }
    order.sort_by(|a, b| match (a.1, b.1) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    let harmonic: f64 = (1..=m).map(|k| 1.0 / k as f64).sum();
    let mf = m as f64;
    let rejected = order
        .iter()
        .enumerate()
        .filter(|(k, (_, p))| {
            p.is_some_and(|p| p <= (*k as f64 + 1.0) / mf * (FDR_LEVEL / harmonic))
        })
        .map(|(k, _)| k + 1)
        .max()
        .unwrap_or(0);
    for &(i, _) in &order[..rejected] {
        if let Ok(t) = &mut comparisons[i].test {
            t.rejected = true;
        }
    }
    let advantage: f64 = comparisons
        .iter()
        .filter_map(|c| c.test.as_ref().ok().map(|t| t.model_wins))
        .sum::<f64>()
        / mf;
    let winning_rate = rejected as f64 / mf;
    Ok(Verdict {
        humans_tested: m,
        humans_won: rejected,
        winning_rate,
        passed: winning_rate >= PASSING_RATE,
        advantage_probability: advantage,
    })
}

/// Kappa against the consensus and alpha without and with the model, with their intervals.
fn model_agreement(
    humans: &RatingTable,
    pooled: &RatingTable,
    labels: &[Option<u32>],
    options: &BootstrapOptions,
) -> Result<ModelAgreement, AgreementError> {
    let level = humans.level();
    let q = humans.categories().len();
    let mut units = Vec::new();
    let mut cells = Vec::new();
    for (u, label) in labels.iter().enumerate() {
        let mut rest: Vec<u32> = humans.row(u).iter().flatten().copied().collect();
        if let (Some(label), false) = (label, rest.is_empty()) {
            units.push(humans.units()[u].clone());
            cells.push(Some(*label));
            cells.push(Some(consensus(&mut rest, level, q)));
        }
    }
    let pair = RatingTable::new(
        units,
        vec!["model".to_owned(), "consensus".to_owned()],
        humans.categories().to_vec(),
        level,
        cells,
    )?;
    let weights = weights_for(level);
    let alpha = |table: &RatingTable| -> Result<Figure, AgreementError> {
        Ok(Figure {
            estimate: krippendorff_alpha(table, level),
            ci: bootstrap_ci(table, Method::KrippendorffAlpha(level), None, options)?,
        })
    };
    Ok(ModelAgreement {
        kappa_vs_consensus: Figure {
            estimate: cohen_kappa(&pair, 0, 1, weights)?,
            ci: bootstrap_ci(&pair, Method::CohenKappa(weights), Some((0, 1)), options)?,
        },
        alpha_humans: alpha(humans)?,
        alpha_with_model: alpha(pooled)?,
    })
}

#[cfg(test)]
mod tests;
