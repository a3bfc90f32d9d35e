//! One coefficient's record: its method, the units and raters it used, and its value or why it
//! is undefined.

use serde::{Deserialize, Serialize};

use super::{Level, Weights};

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
