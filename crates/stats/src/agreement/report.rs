//! Every coefficient for one table in one record: the CLI's `--json` contract.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::alpha::{alpha_eval, alpha_values};
use super::bootstrap::{Statistic, bootstrap_many};
use super::multi::{Chance, agreement_weights, fleiss_eval, gwet_eval};
use super::pairwise::{PairConfusions, cohen_from_confusion, percent_eval};
use super::profile::Profiles;
use super::{BootstrapOptions, ConfidenceInterval, Level, RatingTable, Undefined, Weights};
use crate::natural::natural_cmp;

/// What [`compute_report`] computes besides the point estimates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ReportOptions {
    /// Bootstrap confidence intervals for every coefficient, when given.
    pub bootstrap: Option<BootstrapOptions>,
}

/// Cohen's kappa of one rater pair with its three weightings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CohenPair {
    /// Units both raters rated.
    pub units: usize,
    /// Unweighted kappa.
    pub unweighted: Option<f64>,
    /// Linearly weighted kappa (ordered levels only).
    pub linear: Option<f64>,
    /// Quadratically weighted kappa (ordered levels only).
    pub quadratic: Option<f64>,
}

/// The rater pairs left out of [`AgreementReport::cohen_kappa`] because they share fewer units
/// than [`FewSharedPairs::min_units`]: a kappa on a handful of units is noise, and a panel of
/// many raters who each rate few tasks has thousands of such pairs. Only their number is kept,
/// by how many units they share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FewSharedPairs {
    /// A pair needs this many shared units to be listed (and bootstrapped).
    pub min_units: usize,
    /// Pairs below it.
    pub pairs: usize,
    /// `by_shared_units[n]`: pairs sharing exactly `n` units, for `n` below `min_units`.
    pub by_shared_units: Vec<usize>,
}

/// Fleiss' kappa on the completely rated units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FleissComplete {
    /// The value.
    pub value: Option<f64>,
    /// Units rated by every rater.
    pub units: usize,
}

/// Gwet's AC2 with both weightings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GwetAc2 {
    /// Linear weights.
    pub linear: Option<f64>,
    /// Quadratic weights.
    pub quadratic: Option<f64>,
}

/// Krippendorff's alpha for each metric that applies to the data's level, in level order.
pub type AlphaByLevel<T> = BTreeMap<Level, T>;

/// Intervals of one rater pair's kappas.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CohenCi {
    /// Unweighted kappa.
    pub unweighted: Option<[f64; 2]>,
    /// Linear weights.
    pub linear: Option<[f64; 2]>,
    /// Quadratic weights.
    pub quadratic: Option<[f64; 2]>,
}

/// Intervals of Gwet's AC2.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GwetAc2Ci {
    /// Linear weights.
    pub linear: Option<[f64; 2]>,
    /// Quadratic weights.
    pub quadratic: Option<[f64; 2]>,
}

/// Bootstrap intervals `[low, high]`, keyed like the point estimates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CiReport {
    /// Percent agreement.
    pub percent_agreement: Option<[f64; 2]>,
    /// Cohen's kappa per pair, keyed `"A|B"`.
    pub cohen_kappa: BTreeMap<String, CohenCi>,
    /// Fleiss' kappa on complete units.
    pub fleiss_kappa: Option<[f64; 2]>,
    /// Gwet's all-units Fleiss' kappa.
    pub fleiss_kappa_all_units: Option<[f64; 2]>,
    /// Krippendorff's alpha per applicable metric.
    pub krippendorff_alpha: AlphaByLevel<Option<[f64; 2]>>,
    /// Gwet's AC1.
    pub gwet_ac1: Option<[f64; 2]>,
    /// Gwet's AC2.
    pub gwet_ac2: GwetAc2Ci,
}

/// Every coefficient for one table. Serializes to the `verity agreement --json` shape; a `null`
/// value has its reason in `reasons` under its key path (for example
/// `"krippendorff_alpha.ordinal"`, `"cohen_kappa.ann|bob.linear"`, `"ci95.gwet_ac1"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgreementReport {
    /// Units with at least one rating.
    pub units: usize,
    /// Rater names, in natural order (`rater 2` before `rater 10`).
    pub raters: Vec<String>,
    /// Ratings present.
    pub ratings: usize,
    /// The level the data was declared at.
    pub level: Level,
    /// See [`super::percent_agreement`].
    pub percent_agreement: Option<f64>,
    /// See [`super::cohen_kappa`]; keyed `"A|B"`, A before B in natural order. Every
    /// pair from [`compute_report`]; from [`compute_panel_report`], the pairs sharing enough units.
    pub cohen_kappa: BTreeMap<String, CohenPair>,
    /// The pairs [`compute_panel_report`] left out of `cohen_kappa`, counted; absent from
    /// [`compute_report`], which lists every pair.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub few_shared_pairs: Option<FewSharedPairs>,
    /// See [`super::fleiss_kappa`].
    pub fleiss_kappa: FleissComplete,
    /// See [`super::fleiss_kappa_all_units`].
    pub fleiss_kappa_all_units: Option<f64>,
    /// See [`super::krippendorff_alpha`]; only the metrics the level allows.
    pub krippendorff_alpha: AlphaByLevel<Option<f64>>,
    /// See [`super::gwet_ac1`].
    pub gwet_ac1: Option<f64>,
    /// See [`super::gwet_ac2`].
    pub gwet_ac2: GwetAc2,
    /// Percentile bootstrap intervals, when bootstrapping was asked for.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ci95: Option<CiReport>,
    /// The bootstrap's parameters (resamples, seed, confidence), so the intervals can be
    /// reproduced; present with `ci95`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub bootstrap: Option<BootstrapOptions>,
    /// Key path → the sentence saying why that value is `null`.
    pub reasons: BTreeMap<String, String>,
}

const NOMINAL_WEIGHTS: &str =
    "weighted coefficients need ordered categories, and the ratings are nominal";

/// Computes every coefficient of the table (and bootstrap intervals when `options` asks), with
/// Cohen's kappa for every rater pair.
///
/// Errors only on invalid bootstrap options; undefined coefficients are `null` with a reason.
pub fn compute_report(
    table: &RatingTable,
    options: &ReportOptions,
) -> Result<AgreementReport, super::AgreementError> {
    report_with_pairs(table, options, None)
}

/// [`compute_report`] for a panel of many raters who each share few units: Cohen's kappa (and
/// its bootstrap) only for the pairs sharing at least `min_units` units; the others are counted
/// in [`AgreementReport::few_shared_pairs`]. Every other coefficient is the same.
pub fn compute_panel_report(
    table: &RatingTable,
    options: &ReportOptions,
    min_units: usize,
) -> Result<AgreementReport, super::AgreementError> {
    report_with_pairs(table, options, Some(min_units))
}

fn report_with_pairs(
    table: &RatingTable,
    options: &ReportOptions,
    min_units: Option<usize>,
) -> Result<AgreementReport, super::AgreementError> {
    let level = table.level();
    let ordered = level != Level::Nominal;
    let mut reasons = BTreeMap::new();
    // One fold of the table serves every coefficient (the public one-coefficient functions
    // each fold it again).
    let profiles = Profiles::new(table);
    let w = &profiles.multiplicity;
    let mut keep = |key: String, estimate: Result<f64, Undefined>| -> Option<f64> {
        match estimate {
            Ok(v) => Some(v),
            Err(Undefined { reason }) => {
                reasons.insert(key, reason);
                None
            }
        }
    };

    let mut order: Vec<usize> = (0..table.raters().len()).collect();
    // Natural order, as every list of raters: rater 7 before rater 13, and pairs named `7|13`.
    order.sort_by(|&a, &b| natural_cmp(&table.raters()[a], &table.raters()[b]));
    let q = table.categories().len();
    let confusions = PairConfusions::new(&profiles, w);
    let none = vec![0.0; q * q];
    let mut few = min_units.map(|min_units| FewSharedPairs {
        min_units,
        pairs: 0,
        by_shared_units: vec![0; min_units],
    });
    // The listed pairs: key, raters (table indices), their confusion matrix and shared units.
    let mut pairs: Vec<(String, usize, usize, &[f64], usize)> = Vec::new();
    for (i, &x) in order.iter().enumerate() {
        for &y in &order[i + 1..] {
            let (conf, units) = confusions.get(x.min(y), x.max(y)).unwrap_or((&none, 0.0));
            let units = units as usize;
            if let Some(f) = few.as_mut()
                && units < f.min_units
            {
                f.pairs += 1;
                f.by_shared_units[units] += 1;
                continue;
            }
            let key = format!("{}|{}", table.raters()[x], table.raters()[y]);
            pairs.push((key, x, y, conf, units));
        }
    }

    let percent = keep("percent_agreement".into(), percent_eval(&profiles, w).1);
    let mut cohen = BTreeMap::new();
    let mut weighted_reasons = Vec::new();
    let mut transposed = vec![0.0; q * q];
    for (key, a, b, conf, units) in &pairs {
        // The matrix is stored with the lower table index as rows; rows are the first rater.
        let conf: &[f64] = if a < b {
            conf
        } else {
            for i in 0..q {
                for j in 0..q {
                    transposed[i * q + j] = conf[j * q + i];
                }
            }
            &transposed
        };
        let mut values = [None; 3];
        for (slot, weights) in [Weights::Unweighted, Weights::Linear, Weights::Quadratic]
            .into_iter()
            .enumerate()
        {
            let path = format!("cohen_kappa.{key}.{}", weights.name());
            if weights != Weights::Unweighted && !ordered {
                weighted_reasons.push(path);
                continue;
            }
            values[slot] = keep(path, cohen_from_confusion(conf, q, weights));
        }
        cohen.insert(
            key.clone(),
            CohenPair {
                units: *units,
                unweighted: values[0],
                linear: values[1],
                quadratic: values[2],
            },
        );
    }
    let (fleiss_units, fleiss) = fleiss_eval(&profiles, w);
    let fleiss_value = keep("fleiss_kappa".into(), fleiss);
    let identity = agreement_weights(table, Weights::Unweighted);
    let fleiss_all = keep(
        "fleiss_kappa_all_units".into(),
        gwet_eval(&profiles, w, &identity, Chance::Fleiss).1,
    );
    let mut alpha = BTreeMap::new();
    for &metric in level.applicable_metrics() {
        let estimate =
            alpha_values(table, metric).and_then(|x| alpha_eval(&profiles, w, metric, &x).1);
        alpha.insert(
            metric,
            keep(format!("krippendorff_alpha.{metric}"), estimate),
        );
    }
    let gwet = |weights: Weights| {
        gwet_eval(
            &profiles,
            w,
            &agreement_weights(table, weights),
            Chance::Gwet,
        )
        .1
    };
    let ac1 = keep("gwet_ac1".into(), gwet(Weights::Unweighted));
    let (ac2_linear, ac2_quadratic) = if ordered {
        (
            keep("gwet_ac2.linear".into(), gwet(Weights::Linear)),
            keep("gwet_ac2.quadratic".into(), gwet(Weights::Quadratic)),
        )
    } else {
        weighted_reasons.push("gwet_ac2.linear".into());
        weighted_reasons.push("gwet_ac2.quadratic".into());
        (None, None)
    };
    for path in weighted_reasons {
        reasons.insert(path, NOMINAL_WEIGHTS.into());
    }

    let ci95 = match &options.bootstrap {
        None => None,
        Some(boot) => {
            let listed: Vec<(String, usize, usize)> = pairs
                .iter()
                .map(|(key, a, b, _, _)| (key.clone(), *a, *b))
                .collect();
            Some(bootstrap_report(table, &listed, boot, &mut reasons)?)
        }
    };

    Ok(AgreementReport {
        units: table.rated_units(),
        raters: order.iter().map(|&i| table.raters()[i].clone()).collect(),
        ratings: table.ratings_count(),
        level,
        percent_agreement: percent,
        cohen_kappa: cohen,
        few_shared_pairs: few,
        fleiss_kappa: FleissComplete {
            value: fleiss_value,
            units: fleiss_units as usize,
        },
        fleiss_kappa_all_units: fleiss_all,
        krippendorff_alpha: alpha,
        gwet_ac1: ac1,
        gwet_ac2: GwetAc2 {
            linear: ac2_linear,
            quadratic: ac2_quadratic,
        },
        ci95,
        bootstrap: options.bootstrap,
        reasons,
    })
}

fn bootstrap_report(
    table: &RatingTable,
    pairs: &[(String, usize, usize)],
    options: &BootstrapOptions,
    reasons: &mut BTreeMap<String, String>,
) -> Result<CiReport, super::AgreementError> {
    let level = table.level();
    let ordered = level != Level::Nominal;
    // Each requested statistic with its key path; weighted ones only on ordered data.
    let mut stats: Vec<(String, Statistic)> =
        vec![("percent_agreement".into(), Statistic::Percent)];
    for (key, a, b) in pairs {
        for weights in [Weights::Unweighted, Weights::Linear, Weights::Quadratic] {
            if weights == Weights::Unweighted || ordered {
                stats.push((
                    format!("cohen_kappa.{key}.{}", weights.name()),
                    Statistic::Cohen {
                        a: *a,
                        b: *b,
                        weights,
                    },
                ));
            }
        }
    }
    stats.push(("fleiss_kappa".into(), Statistic::Fleiss));
    stats.push(("fleiss_kappa_all_units".into(), Statistic::FleissAllUnits));
    for &metric in level.applicable_metrics() {
        stats.push((
            format!("krippendorff_alpha.{metric}"),
            Statistic::Alpha(metric),
        ));
    }
    stats.push(("gwet_ac1".into(), Statistic::Gwet(Weights::Unweighted)));
    if ordered {
        stats.push(("gwet_ac2.linear".into(), Statistic::Gwet(Weights::Linear)));
        stats.push((
            "gwet_ac2.quadratic".into(),
            Statistic::Gwet(Weights::Quadratic),
        ));
    }
    let list: Vec<Statistic> = stats.iter().map(|(_, s)| *s).collect();
    let intervals = bootstrap_many(table, &list, options)?;
    let mut by_key: BTreeMap<String, Option<[f64; 2]>> = BTreeMap::new();
    for ((key, _), interval) in stats.into_iter().zip(intervals) {
        let value = match interval {
            Ok(ConfidenceInterval { low, high, .. }) => Some([low, high]),
            Err(Undefined { reason }) => {
                reasons.insert(format!("ci95.{key}"), reason);
                None
            }
        };
        by_key.insert(key, value);
    }
    let mut take = |key: &str| -> Option<[f64; 2]> {
        match by_key.remove(key) {
            Some(v) => v,
            None => {
                if key.ends_with(".linear") || key.ends_with(".quadratic") {
                    reasons.insert(format!("ci95.{key}"), NOMINAL_WEIGHTS.into());
                }
                None
            }
        }
    };
    let mut cohen = BTreeMap::new();
    for (key, _, _) in pairs {
        cohen.insert(
            key.clone(),
            CohenCi {
                unweighted: take(&format!("cohen_kappa.{key}.unweighted")),
                linear: take(&format!("cohen_kappa.{key}.linear")),
                quadratic: take(&format!("cohen_kappa.{key}.quadratic")),
            },
        );
    }
    let mut alpha = BTreeMap::new();
    for &metric in level.applicable_metrics() {
        alpha.insert(metric, take(&format!("krippendorff_alpha.{metric}")));
    }
    Ok(CiReport {
        percent_agreement: take("percent_agreement"),
        cohen_kappa: cohen,
        fleiss_kappa: take("fleiss_kappa"),
        fleiss_kappa_all_units: take("fleiss_kappa_all_units"),
        krippendorff_alpha: alpha,
        gwet_ac1: take("gwet_ac1"),
        gwet_ac2: GwetAc2Ci {
            linear: take("gwet_ac2.linear"),
            quadratic: take("gwet_ac2.quadratic"),
        },
    })
}

fn fmt_value(v: Option<f64>) -> String {
    v.map_or_else(|| "undefined".to_owned(), |x| format!("{x:.4}"))
}

fn fmt_ci(v: Option<&Option<[f64; 2]>>) -> String {
    match v {
        None => String::new(),
        Some(None) => "undefined".to_owned(),
        Some(Some([lo, hi])) => format!("[{lo:.4}, {hi:.4}]"),
    }
}

/// A plain-text table of the report, for the terminal.
pub fn render_text(report: &AgreementReport) -> String {
    let mut out = String::new();
    let ci = report.ci95.as_ref();
    let ci_header = match &report.bootstrap {
        Some(b) => format!(
            "{:.0}% CI ({} resamples, seed {})",
            b.confidence * 100.0,
            b.resamples,
            b.seed
        ),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "{} units, {} raters, {} ratings, level {}",
        report.units,
        report.raters.len(),
        report.ratings,
        report.level
    );
    let _ = writeln!(out, "raters: {}", report.raters.join(", "));
    let _ = writeln!(out);
    let _ = writeln!(out, "{:<42} {:>10}  {}", "coefficient", "value", ci_header);
    let mut row = |name: String, value: Option<f64>, interval: Option<&Option<[f64; 2]>>| {
        let _ = writeln!(
            out,
            "{:<42} {:>10}  {}",
            name,
            fmt_value(value),
            fmt_ci(interval)
        );
    };
    row(
        "percent agreement".into(),
        report.percent_agreement,
        ci.map(|c| &c.percent_agreement),
    );
    row(
        format!(
            "Fleiss' kappa ({} complete units)",
            report.fleiss_kappa.units
        ),
        report.fleiss_kappa.value,
        ci.map(|c| &c.fleiss_kappa),
    );
    row(
        "Fleiss' kappa, all units (Gwet)".into(),
        report.fleiss_kappa_all_units,
        ci.map(|c| &c.fleiss_kappa_all_units),
    );
    for (metric, value) in &report.krippendorff_alpha {
        row(
            format!("Krippendorff's alpha, {metric}"),
            *value,
            ci.and_then(|c| c.krippendorff_alpha.get(metric)),
        );
    }
    row(
        "Gwet's AC1".into(),
        report.gwet_ac1,
        ci.map(|c| &c.gwet_ac1),
    );
    row(
        "Gwet's AC2, linear".into(),
        report.gwet_ac2.linear,
        ci.map(|c| &c.gwet_ac2.linear),
    );
    row(
        "Gwet's AC2, quadratic".into(),
        report.gwet_ac2.quadratic,
        ci.map(|c| &c.gwet_ac2.quadratic),
    );
    if !report.cohen_kappa.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{:<30} {:>7} {:>11} {:>11} {:>11}",
            "Cohen's kappa", "units", "unweighted", "linear", "quadratic"
        );
        let mut pairs: Vec<_> = report.cohen_kappa.iter().collect();
        pairs.sort_by(|(a, _), (b, _)| natural_cmp(a, b));
        for (pair, k) in pairs {
            let _ = writeln!(
                out,
                "{:<30} {:>7} {:>11} {:>11} {:>11}",
                pair,
                k.units,
                fmt_value(k.unweighted),
                fmt_value(k.linear),
                fmt_value(k.quadratic)
            );
            if let Some(c) = ci.and_then(|c| c.cohen_kappa.get(pair)) {
                let _ = writeln!(
                    out,
                    "{:<30} {:>7} {:>11} {:>11} {:>11}",
                    "",
                    "",
                    fmt_ci(Some(&c.unweighted)),
                    fmt_ci(Some(&c.linear)),
                    fmt_ci(Some(&c.quadratic))
                );
            }
        }
    }
    if let Some(few) = report.few_shared_pairs.as_ref().filter(|f| f.pairs > 0) {
        let none = few.by_shared_units.first().copied().unwrap_or(0);
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "Cohen's kappa leaves out {} that share fewer than {} units, too few for a kappa{}; --json counts them by units shared (few_shared_pairs)",
            crate::natural::counted(few.pairs, "rater pair"),
            few.min_units,
            match none {
                0 => String::new(),
                n if n == few.pairs => ", none of them sharing any".to_string(),
                n => format!(" ({n} of them share none)"),
            }
        );
    }
    if !report.reasons.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "undefined:");
        for (key, reason) in &report.reasons {
            let _ = writeln!(out, "  {key}: {reason}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agreement::Category;

    /// `ann` and `bob` share twelve units, `cy` three of them, `dee` rates one unit alone.
    fn panel() -> RatingTable {
        let raters = ["ann", "bob", "cy", "dee"];
        let mut cells = Vec::new();
        for u in 0..13u32 {
            let value = Some(u % 3);
            cells.extend([
                (u < 12).then_some(u % 2),
                (u < 12).then_some(u % 2 + u32::from(u == 5)),
                (u < 3).then_some(2),
                if u == 12 { value } else { None },
            ]);
        }
        RatingTable::new(
            (0..13).map(|u| format!("u{u}")).collect(),
            raters.iter().map(|r| r.to_string()).collect(),
            (0..3).map(|c| Category::number(f64::from(c))).collect(),
            Level::Ordinal,
            cells,
        )
        .expect("a well-formed table")
    }

    #[test]
    fn pairs_sharing_few_units_are_counted_not_listed_nor_bootstrapped() {
        let table = panel();
        let options = ReportOptions {
            bootstrap: Some(BootstrapOptions {
                resamples: 20,
                seed: 1,
                confidence: 0.95,
            }),
        };
        let all = compute_report(&table, &options).expect("valid options");
        let panel = compute_panel_report(&table, &options, 10).expect("valid options");
        assert_eq!(panel.cohen_kappa.keys().collect::<Vec<_>>(), ["ann|bob"]);
        assert_eq!(
            panel.cohen_kappa["ann|bob"], all.cohen_kappa["ann|bob"],
            "a listed pair's kappa is the same in both reports"
        );
        let ci = panel.ci95.as_ref().expect("bootstrapped");
        assert_eq!(ci.cohen_kappa.keys().collect::<Vec<_>>(), ["ann|bob"]);
        assert_eq!(
            ci.cohen_kappa["ann|bob"],
            all.ci95.as_ref().expect("bootstrapped").cohen_kappa["ann|bob"]
        );
        assert_eq!(
            panel.few_shared_pairs,
            Some(FewSharedPairs {
                min_units: 10,
                pairs: 5,
                by_shared_units: vec![3, 0, 0, 2, 0, 0, 0, 0, 0, 0],
            })
        );
        assert!(
            panel.reasons.keys().all(|k| !k.contains("|dee")),
            "no reason is given for a pair that is not listed: {:?}",
            panel.reasons.keys()
        );
        assert_eq!(all.cohen_kappa.len(), 6);
        assert_eq!(all.few_shared_pairs, None);
        // The text says how many pairs it left out, and why.
        assert!(
            render_text(&panel).contains(
                "Cohen's kappa leaves out 5 rater pairs that share fewer than 10 units, too few for a kappa (3 of them share none)"
            ),
            "{}",
            render_text(&panel)
        );
        assert!(!render_text(&all).contains("leaves out"));
        let json = serde_json::to_value(&panel).expect("serializable");
        assert_eq!(
            json["few_shared_pairs"],
            serde_json::json!({"min_units": 10, "pairs": 5, "by_shared_units": [3, 0, 0, 2, 0, 0, 0, 0, 0, 0]})
        );
        let json = serde_json::to_value(&all).expect("serializable");
        assert!(json.get("few_shared_pairs").is_none());
        for key in [
            "percent_agreement",
            "krippendorff_alpha",
            "gwet_ac1",
            "fleiss_kappa",
        ] {
            assert_eq!(
                serde_json::to_value(&panel).expect("serializable")[key],
                json[key],
                "{key} does not depend on the pair threshold"
            );
        }
    }
}
