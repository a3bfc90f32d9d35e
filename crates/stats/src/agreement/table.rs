//! The input of every coefficient: units × raters, each cell a category of a declared scale.

use std::collections::HashSet;

use super::{AgreementError, Level};

/// One category of the scale: its label and, when it is a number, its numeric value.
///
/// The interval and ratio metrics, and Gwet's weights, use the numeric value; the ordinal metric
/// and Cohen's weights use the category's position in the scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Category {
    /// The label raters chose, as written in the ratings.
    pub label: String,
    /// The category's number, when it has one.
    pub value: Option<f64>,
}

impl Category {
    /// A category that is only a label (`"yes"`, `"<15 min fix"`).
    pub fn label(label: impl Into<String>) -> Self {
        Category {
            label: label.into(),
            value: None,
        }
    }

    /// A numeric category; its label is the number as Rust prints it.
    pub fn number(value: f64) -> Self {
        Category {
            label: value.to_string(),
            value: Some(value),
        }
    }

    /// A numeric category with the label it was written with (`"2"`, `"2.50"`).
    pub fn labelled_number(label: impl Into<String>, value: f64) -> Self {
        Category {
            label: label.into(),
            value: Some(value),
        }
    }
}

/// Ratings of units by raters on one declared, ordered scale, missing ratings allowed.
///
/// Cells are stored unit by unit: cell `unit * raters + rater` is the index of the category
/// that rater gave that unit, or `None` when the rater did not rate it.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingTable {
    units: Vec<String>,
    raters: Vec<String>,
    categories: Vec<Category>,
    level: Level,
    cells: Vec<Option<u32>>,
}

impl RatingTable {
    /// Builds a table after checking that every cell names a category of the scale, names are
    /// unique, and an interval or ratio level has a usable number for every category.
    pub fn new(
        units: Vec<String>,
        raters: Vec<String>,
        categories: Vec<Category>,
        level: Level,
        cells: Vec<Option<u32>>,
    ) -> Result<Self, AgreementError> {
        let expected = units.len() * raters.len();
        if cells.len() != expected {
            return Err(AgreementError::CellCount {
                cells: cells.len(),
                units: units.len(),
                raters: raters.len(),
                expected,
            });
        }
        if categories.is_empty() {
            return Err(AgreementError::EmptyScale);
        }
        let mut seen = HashSet::new();
        for c in &categories {
            if !seen.insert(c.label.as_str()) {
                return Err(AgreementError::DuplicateCategory {
                    label: c.label.clone(),
                });
            }
            match (c.value, level) {
                (Some(v), _) if !v.is_finite() => {
                    return Err(AgreementError::NonFiniteValue {
                        label: c.label.clone(),
                        value: v,
                    });
                }
                (None, Level::Interval | Level::Ratio) => {
                    return Err(AgreementError::NonNumericCategory {
                        label: c.label.clone(),
                        level,
                    });
                }
                (Some(v), Level::Ratio) if v < 0.0 => {
                    return Err(AgreementError::InvalidRatioValue {
                        label: c.label.clone(),
                        value: v,
                    });
                }
                _ => {}
            }
        }
        let mut seen = HashSet::new();
        for r in &raters {
            if !seen.insert(r.as_str()) {
                return Err(AgreementError::DuplicateRater { name: r.clone() });
            }
        }
        let mut seen = HashSet::new();
        for u in &units {
            if !seen.insert(u.as_str()) {
                return Err(AgreementError::DuplicateUnit { name: u.clone() });
            }
        }
        let n_raters = raters.len();
        for (i, cell) in cells.iter().enumerate() {
            if let Some(index) = *cell
                && index as usize >= categories.len()
            {
                return Err(AgreementError::CategoryOutOfRange {
                    unit: units[i / n_raters].clone(),
                    rater: raters[i % n_raters].clone(),
                    index,
                    categories: categories.len(),
                });
            }
        }
        Ok(RatingTable {
            units,
            raters,
            categories,
            level,
            cells,
        })
    }

    /// Unit names, in table order.
    pub fn units(&self) -> &[String] {
        &self.units
    }

    /// Rater names, in table order.
    pub fn raters(&self) -> &[String] {
        &self.raters
    }

    /// The scale, in its declared order.
    pub fn categories(&self) -> &[Category] {
        &self.categories
    }

    /// The level of measurement the ratings were declared at.
    pub fn level(&self) -> Level {
        self.level
    }

    /// All cells, unit by unit.
    pub fn cells(&self) -> &[Option<u32>] {
        &self.cells
    }

    /// One unit's row: one cell per rater.
    pub fn row(&self, unit: usize) -> &[Option<u32>] {
        let r = self.raters.len();
        &self.cells[unit * r..unit * r + r]
    }

    /// The category index `rater` gave `unit`, if any; `None` also for indices outside the table.
    pub fn rating(&self, unit: usize, rater: usize) -> Option<u32> {
        if rater >= self.raters.len() {
            return None;
        }
        self.cells
            .get(unit * self.raters.len() + rater)
            .copied()
            .flatten()
    }

    /// Number of ratings present.
    pub fn ratings_count(&self) -> usize {
        self.cells.iter().filter(|c| c.is_some()).count()
    }

    /// Number of units with at least one rating.
    pub fn rated_units(&self) -> usize {
        if self.raters.is_empty() {
            return 0;
        }
        self.cells
            .chunks(self.raters.len())
            .filter(|row| row.iter().any(Option::is_some))
            .count()
    }

    /// Whether every category has a numeric value.
    pub fn is_numeric(&self) -> bool {
        self.categories.iter().all(|c| c.value.is_some())
    }

    pub(crate) fn check_rater(&self, index: usize) -> Result<(), AgreementError> {
        if index >= self.raters.len() {
            return Err(AgreementError::RaterOutOfRange {
                index,
                raters: self.raters.len(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(prefix: &str, n: usize) -> Vec<String> {
        (0..n).map(|i| format!("{prefix}{i}")).collect()
    }

    #[test]
    fn a_cell_outside_the_scale_is_refused_with_its_unit_and_rater() {
        let err = RatingTable::new(
            names("u", 1),
            names("r", 2),
            vec![Category::label("a")],
            Level::Nominal,
            vec![Some(0), Some(3)],
        )
        .expect_err("index 3 is outside a one-category scale");
        assert_eq!(
            err.to_string(),
            "unit 'u0', rater 'r1' has category index 3, but the scale has only 1 categories"
        );
    }

    #[test]
    fn a_wrong_cell_count_is_refused() {
        let err = RatingTable::new(
            names("u", 2),
            names("r", 2),
            vec![Category::label("a")],
            Level::Nominal,
            vec![Some(0)],
        )
        .expect_err("two by two needs four cells");
        assert!(
            err.to_string()
                .starts_with("the table has 1 cells but 2 units × 2 raters need 4")
        );
    }

    #[test]
    fn an_interval_level_needs_numbers() {
        let err = RatingTable::new(
            names("u", 1),
            names("r", 1),
            vec![Category::label("low")],
            Level::Interval,
            vec![Some(0)],
        )
        .expect_err("a label has no number");
        assert_eq!(
            err.to_string(),
            "category 'low' has no numeric value, but the interval level needs a number for every category"
        );
    }

    #[test]
    fn a_ratio_level_refuses_negative_values() {
        let err = RatingTable::new(
            names("u", 1),
            names("r", 1),
            vec![Category::number(-1.0)],
            Level::Ratio,
            vec![Some(0)],
        )
        .expect_err("ratio values are non-negative");
        assert!(matches!(err, AgreementError::InvalidRatioValue { .. }));
    }

    #[test]
    fn duplicate_names_are_refused() {
        let cats = vec![Category::label("a")];
        let e = RatingTable::new(
            names("u", 1),
            vec!["x".into(), "x".into()],
            cats.clone(),
            Level::Nominal,
            vec![None, None],
        );
        assert!(matches!(e, Err(AgreementError::DuplicateRater { .. })));
        let e = RatingTable::new(
            vec!["u".into(), "u".into()],
            names("r", 1),
            cats,
            Level::Nominal,
            vec![None, None],
        );
        assert!(matches!(e, Err(AgreementError::DuplicateUnit { .. })));
        let e = RatingTable::new(
            names("u", 1),
            names("r", 1),
            vec![Category::label("a"), Category::label("a")],
            Level::Nominal,
            vec![None],
        );
        assert!(matches!(e, Err(AgreementError::DuplicateCategory { .. })));
        let e = RatingTable::new(
            names("u", 1),
            names("r", 1),
            vec![],
            Level::Nominal,
            vec![None],
        );
        assert_eq!(e, Err(AgreementError::EmptyScale));
    }
}
