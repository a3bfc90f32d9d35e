//! Inter-rater agreement: pure statistics over a units × raters table of ratings.
//!
//! Nothing here reads files or clocks: a [`RatingTable`] goes in, one [`Coefficient`] record per
//! coefficient comes out (method, units, raters, value), in the manner of R irr's `irrlist`.
//! A value that is not defined for the data (a single category, no pairable unit) is
//! [`Undefined`] with a sentence saying why: never NaN, never a silent 0 or 1.
//!
//! Every coefficient follows one reference implementation, named in its doc comment, and the
//! integration tests check it against values computed by those libraries and against published
//! examples.
//!
//! ```
//! use verity_stats::agreement::{self, Category, Level, RatingTable, Weights};
//!
//! // Two raters, four units, a yes/no scale; the last unit has only one rating.
//! let table = RatingTable::new(
//!     vec!["u1".into(), "u2".into(), "u3".into(), "u4".into()],
//!     vec!["ann".into(), "bob".into()],
//!     vec![Category::label("no"), Category::label("yes")],
//!     Level::Nominal,
//!     vec![Some(1), Some(1), Some(0), Some(0), Some(1), Some(0), Some(1), None],
//! )
//! .expect("a well-formed table");
//! let kappa = agreement::cohen_kappa(&table, 0, 1, Weights::Unweighted).expect("raters exist");
//! assert_eq!(kappa.units, 3);
//! assert!((kappa.value().expect("defined") - 0.4).abs() < 1e-12);
//! ```

// Profiles are parallel arrays (rows, counts, weights) indexed by profile id; index loops
// read better here than zipped iterators over three or four of them.
#![allow(clippy::needless_range_loop)]

mod alpha;
pub mod alt_test;
mod bootstrap;
mod multi;
mod pairwise;
mod profile;
pub mod quality;
mod report;
mod table;

pub use alpha::krippendorff_alpha;
pub use bootstrap::{BootstrapOptions, ConfidenceInterval, bootstrap_ci};
pub use multi::{fleiss_kappa, fleiss_kappa_all_units, gwet_ac1, gwet_ac2};
pub use pairwise::{
    ConfusionMatrix, RaterPairMatrix, cohen_kappa, cohen_kappa_matrix, confusion_matrix,
    percent_agreement,
};
pub use report::{
    AgreementReport, AlphaByLevel, CiReport, CohenCi, CohenPair, FewSharedPairs, FleissComplete,
    GwetAc2, GwetAc2Ci, ReportOptions, compute_panel_report, compute_report, render_text,
};
pub use table::{Category, RatingTable};

use serde::{Deserialize, Serialize};

/// Level of measurement of the ratings (Stevens), which decides the distance between values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Unordered categories: two values agree or they do not.
    Nominal,
    /// Ordered categories without meaningful distances.
    Ordinal,
    /// Numbers whose differences are meaningful.
    Interval,
    /// Non-negative numbers with a true zero, whose ratios are meaningful.
    Ratio,
}

impl Level {
    /// The level's lowercase name, as the CLI and the JSON report spell it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Nominal => "nominal",
            Level::Ordinal => "ordinal",
            Level::Interval => "interval",
            Level::Ratio => "ratio",
        }
    }

    /// The Krippendorff metrics that make sense for data at this level: nominal data gets the
    /// nominal metric only, ordinal data adds the rank metric, interval data adds squared
    /// differences, ratio data adds the ratio metric.
    pub fn applicable_metrics(self) -> &'static [Level] {
        match self {
            Level::Nominal => &[Level::Nominal],
            Level::Ordinal => &[Level::Nominal, Level::Ordinal],
            Level::Interval => &[Level::Nominal, Level::Ordinal, Level::Interval],
            Level::Ratio => &[
                Level::Nominal,
                Level::Ordinal,
                Level::Interval,
                Level::Ratio,
            ],
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Level {
    type Err = AgreementError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "nominal" => Ok(Level::Nominal),
            "ordinal" => Ok(Level::Ordinal),
            "interval" => Ok(Level::Interval),
            "ratio" => Ok(Level::Ratio),
            _ => Err(AgreementError::UnknownLevel {
                given: s.to_owned(),
            }),
        }
    }
}

/// Disagreement weights for kappa-type coefficients on ordered scales.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Weights {
    /// Every disagreement counts fully.
    Unweighted,
    /// Disagreement grows with the distance between the two categories.
    Linear,
    /// Disagreement grows with the squared distance between the two categories.
    Quadratic,
}

impl Weights {
    /// The weights' lowercase name, as the JSON report spells it.
    pub fn name(self) -> &'static str {
        match self {
            Weights::Unweighted => "unweighted",
            Weights::Linear => "linear",
            Weights::Quadratic => "quadratic",
        }
    }
}

/// Which coefficient a [`Coefficient`] record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Mean proportion of agreeing rater pairs per unit.
    PercentAgreement,
    /// Cohen's kappa for one rater pair, with the given weights.
    CohenKappa(Weights),
    /// Fleiss' kappa on the units every rater rated.
    FleissKappa,
    /// Gwet's form of Fleiss' kappa over all units, missing ratings allowed.
    FleissKappaAllUnits,
    /// Krippendorff's alpha with the metric of the given level.
    KrippendorffAlpha(Level),
    /// Gwet's AC1 (unweighted) or AC2 (weighted).
    GwetAc(Weights),
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Method::PercentAgreement => f.write_str("percent agreement"),
            Method::CohenKappa(w) => write!(f, "Cohen's kappa ({})", w.name()),
            Method::FleissKappa => f.write_str("Fleiss' kappa"),
            Method::FleissKappaAllUnits => f.write_str("Fleiss' kappa (Gwet, all units)"),
            Method::KrippendorffAlpha(l) => write!(f, "Krippendorff's alpha ({l})"),
            Method::GwetAc(Weights::Unweighted) => f.write_str("Gwet's AC1"),
            Method::GwetAc(w) => write!(f, "Gwet's AC2 ({})", w.name()),
        }
    }
}

/// Why a coefficient has no value for the data it was given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undefined {
    /// One sentence naming what about the data leaves the coefficient undefined.
    pub reason: String,
}

impl Undefined {
    pub(crate) fn new(reason: impl Into<String>) -> Self {
        Undefined {
            reason: reason.into(),
        }
    }
}

/// One coefficient computed on one table: the counterpart of R irr's `irrlist`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coefficient {
    /// The coefficient and its variant.
    pub method: Method,
    /// Units that entered the computation (for example co-rated units for Cohen's kappa,
    /// pairable units for Krippendorff's alpha).
    pub units: usize,
    /// Raters that entered the computation.
    pub raters: usize,
    /// The value, or why there is none.
    pub estimate: Result<f64, Undefined>,
}

impl Coefficient {
    /// The value when it is defined.
    pub fn value(&self) -> Option<f64> {
        self.estimate.as_ref().ok().copied()
    }

    /// The reason when the value is undefined.
    pub fn reason(&self) -> Option<&str> {
        self.estimate.as_ref().err().map(|u| u.reason.as_str())
    }
}

/// What a caller got wrong when building a table or asking for a statistic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AgreementError {
    /// The cell vector does not have one cell per unit and rater.
    #[error(
        "the table has {cells} cells but {units} units × {raters} raters need {expected}; give one cell per unit and rater, unit by unit"
    )]
    CellCount {
        /// Cells given.
        cells: usize,
        /// Units declared.
        units: usize,
        /// Raters declared.
        raters: usize,
        /// Cells needed.
        expected: usize,
    },
    /// A cell refers to a category the scale does not have.
    #[error(
        "unit '{unit}', rater '{rater}' has category index {index}, but the scale has only {categories} categories"
    )]
    CategoryOutOfRange {
        /// The unit's name.
        unit: String,
        /// The rater's name.
        rater: String,
        /// The index given.
        index: u32,
        /// Number of categories in the scale.
        categories: usize,
    },
    /// The scale has no categories.
    #[error("the scale has no categories; declare at least one")]
    EmptyScale,
    /// Two categories of the scale have the same label.
    #[error("the scale lists category '{label}' twice; each category must appear once")]
    DuplicateCategory {
        /// The repeated label.
        label: String,
    },
    /// Two raters have the same name.
    #[error("rater '{name}' appears twice in the table; rater names must be unique")]
    DuplicateRater {
        /// The repeated name.
        name: String,
    },
    /// Two units have the same name.
    #[error("unit '{name}' appears twice in the table; unit names must be unique")]
    DuplicateUnit {
        /// The repeated name.
        name: String,
    },
    /// An interval or ratio level needs a number for every category.
    #[error(
        "category '{label}' has no numeric value, but the {level} level needs a number for every category"
    )]
    NonNumericCategory {
        /// The category's label.
        label: String,
        /// The level that needs numbers.
        level: Level,
    },
    /// A ratio level needs non-negative finite numbers.
    #[error(
        "category '{label}' has value {value}, but the ratio level needs finite numbers of zero or more"
    )]
    InvalidRatioValue {
        /// The category's label.
        label: String,
        /// Its value.
        value: f64,
    },
    /// A category's numeric value is NaN or infinite.
    #[error("category '{label}' has value {value}, which is not a finite number")]
    NonFiniteValue {
        /// The category's label.
        label: String,
        /// Its value.
        value: f64,
    },
    /// A rater index is outside the table.
    #[error("rater index {index} is outside the table, which has {raters} raters")]
    RaterOutOfRange {
        /// The index given.
        index: usize,
        /// Number of raters in the table.
        raters: usize,
    },
    /// A pair statistic was asked for a rater paired with itself.
    #[error("rater index {index} was given twice; a rater pair needs two different raters")]
    SameRater {
        /// The index given twice.
        index: usize,
    },
    /// Cohen's kappa was asked for without naming the rater pair.
    #[error("Cohen's kappa is computed for a rater pair, and no pair was given")]
    PairRequired,
    /// The bootstrap needs at least one resample.
    #[error("the bootstrap needs at least one resample, but {resamples} were asked for")]
    NoResamples {
        /// Resamples asked for.
        resamples: usize,
    },
    /// The confidence level must lie strictly between 0 and 1.
    #[error("the confidence level must lie strictly between 0 and 1, but {level} was given")]
    ConfidenceLevel {
        /// The level given.
        level: f64,
    },
    /// The alternative annotator test's margin is outside `[0, 1]`.
    #[error("the margin ε must lie between 0 and 1, but {given} was given")]
    Epsilon {
        /// The margin given.
        given: f64,
    },
    /// The model's labels do not match the humans' table unit for unit.
    #[error(
        "the model has {labels} labels but the humans' table has {units} units; give one label (or none) per unit, in the table's order"
    )]
    ModelLabelCount {
        /// Labels given.
        labels: usize,
        /// Units in the table.
        units: usize,
    },
    /// A level name that is not one of nominal, ordinal, interval, ratio.
    #[error("'{given}' is not a level of measurement; use nominal, ordinal, interval or ratio")]
    UnknownLevel {
        /// The text given.
        given: String,
    },
}
