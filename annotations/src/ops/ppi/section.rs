//! What the coordinator's report shows of few humans, once a sample is drawn: the share of
//! underdetermined tasks from the sample and a predictor (the model raters' mean, else the
//! evidence risk) beside the humans alone, both intervals in a table and a chart, the sample
//! and how it was drawn, and what the intervals assume; or why no estimate stands.

use std::fmt::Write as _;

use super::{Estimate, EstimateRequest, estimate};
use crate::export::svg::{self, Bar};
use crate::ops::{Error, Project, Result};

/// The report's few-humans figures.
pub(in crate::ops) struct FewHumansSection {
    /// The estimate, or the sentence that refused it.
    outcome: std::result::Result<Estimate, String>,
}

impl FewHumansSection {
    /// The predictor the estimate used, when it stands: the report's scores use it too.
    pub(in crate::ops) fn predictor(&self) -> Option<&str> {
        self.outcome.as_ref().ok().map(|e| e.predictor.as_str())
    }
}

/// The few-humans section of the report, when the project has a drawn sample and its
/// questionnaire says which tasks are underdetermined.
pub(in crate::ops) fn report_few_humans(project: &Project) -> Result<Option<FewHumansSection>> {
    if project.store.sample_draws()?.is_empty() || project.questionnaire.filter.is_none() {
        return Ok(None);
    }
    let predictor = if project.store.model_raters()?.is_empty() {
        "risk"
    } else {
        "models"
    };
    let request = EstimateRequest {
        label: "underdetermined".into(),
        predictor: predictor.into(),
        ..EstimateRequest::default()
    };
    let outcome = match estimate(project, &request) {
        Ok(e) => Ok(e),
        Err(Error::Refused { message, .. }) => Err(message),
        Err(other) => return Err(other),
    };
    Ok(Some(FewHumansSection { outcome }))
}

fn percent(v: f64) -> String {
    format!("{:.1}%", 100.0 * v)
}

fn interval([lo, hi]: [f64; 2]) -> String {
    format!("[{:.1}, {:.1}]", 100.0 * lo, 100.0 * hi)
}

/// Appends the section to `md` and its chart to `files`.
pub(in crate::ops) fn render_few_humans(
    section: &FewHumansSection,
    md: &mut String,
    files: &mut Vec<(String, String)>,
) {
    let _ = writeln!(md, "\n## Few humans\n");
    let e = match &section.outcome {
        Ok(e) => e,
        Err(why) => {
            let _ = writeln!(
                md,
                "A sample is drawn, but no prediction-powered estimate stands: {why}."
            );
            return;
        }
    };
    let draws: Vec<String> = e.draws.iter().map(|d| d.describe()).collect();
    let _ = writeln!(
        md,
        "The share of underdetermined tasks from the panel's labels on the random sample ({} of {} tasks drawn: {}; {} labelled) and `{}` on the {} others, by prediction-powered inference (PPI++, λ = {:.2}), beside the humans' labels alone; 95% intervals.\n",
        e.sampled,
        e.population,
        draws.join(", then "),
        e.n_labeled,
        e.predictor,
        e.n_unlabeled,
        e.lambda
    );
    let _ = writeln!(
        md,
        "| estimate | value | 95% interval | half-width (points) | worth in labelled tasks |"
    );
    let _ = writeln!(md, "|---|---:|---|---:|---:|");
    let rows = [
        ("prediction-powered", e.estimate, e.ci, e.effective_n),
        (
            "humans alone",
            e.classical_estimate,
            e.classical_ci,
            e.n_labeled as f64,
        ),
    ];
    let mut bars = Vec::new();
    for (name, value, ci, worth) in rows {
        let _ = writeln!(
            md,
            "| {name} | {} | {} | ±{:.1} | {worth:.0} |",
            percent(value),
            interval(ci),
            50.0 * (ci[1] - ci[0])
        );
        bars.push(Bar {
            label: name.into(),
            value: Some(value),
            interval: Some(ci),
        });
    }
    files.push((
        "few-humans.svg".into(),
        svg::interval_bars(
            "Share of underdetermined tasks (95% intervals)",
            &bars,
            0.0,
            1.0,
        ),
    ));
    let _ = writeln!(
        md,
        "\n![the share of underdetermined tasks, both intervals](few-humans.svg)\n"
    );
    let _ = writeln!(md, "What the intervals assume:\n");
    for a in &e.assumes {
        let _ = writeln!(md, "- {a}");
    }
    for w in &e.warnings {
        let _ = writeln!(md, "\nNote: {w}.");
    }
}
