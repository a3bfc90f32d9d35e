//! Measurement levels and the disagreement weights of weighted kappa.

use serde::{Deserialize, Serialize};

use super::AgreementError;

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
