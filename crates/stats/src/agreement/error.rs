//! Why a table or a request cannot give agreement.

use super::Level;

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
