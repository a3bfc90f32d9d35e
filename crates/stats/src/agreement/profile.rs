//! The table folded into its distinct rows ("profiles") with a weight each.
//!
//! Every coefficient here is a function of sums over units, so it can be evaluated on distinct
//! rows weighted by how often each occurs. The point estimate uses the multiplicities; a
//! bootstrap resample only changes the weights. With a handful of categories and raters a
//! table of 20,000 units has a few thousand profiles, so a resample costs a weighted sum over
//! those instead of a recomputation over every unit.

use std::collections::HashMap;

use super::RatingTable;

/// Distinct rows of a table, with per-row category counts precomputed.
#[derive(Debug, Clone)]
pub(crate) struct Profiles {
    pub n_raters: usize,
    pub n_categories: usize,
    /// Distinct rows, `n_raters` cells each.
    pub cells: Vec<Option<u32>>,
    /// How many units of the table have each distinct row.
    pub multiplicity: Vec<f64>,
    /// For every unit with at least one rating, its profile.
    pub unit_profile: Vec<u32>,
    /// Number of ratings in each profile.
    pub rated: Vec<u32>,
    /// Sparse category counts of each profile: `counts[count_start[p]..count_start[p + 1]]`,
    /// as (category, count), sorted by category.
    pub count_start: Vec<usize>,
    pub counts: Vec<(u32, u32)>,
}

impl Profiles {
    pub fn new(table: &RatingTable) -> Self {
        let n_raters = table.raters().len();
        let mut index: HashMap<&[Option<u32>], u32> = HashMap::new();
        let mut cells = Vec::new();
        let mut multiplicity: Vec<f64> = Vec::new();
        let mut unit_profile = Vec::new();
        if n_raters > 0 {
            for row in table.cells().chunks(n_raters) {
                if row.iter().all(Option::is_none) {
                    continue;
                }
                let next = multiplicity.len() as u32;
                let id = *index.entry(row).or_insert_with(|| {
                    cells.extend_from_slice(row);
                    multiplicity.push(0.0);
                    next
                });
                multiplicity[id as usize] += 1.0;
                unit_profile.push(id);
            }
        }
        let mut rated = Vec::with_capacity(multiplicity.len());
        let mut count_start = Vec::with_capacity(multiplicity.len() + 1);
        let mut counts = Vec::new();
        let mut scratch: Vec<u32> = Vec::with_capacity(n_raters);
        count_start.push(0);
        if n_raters > 0 {
            for row in cells.chunks(n_raters) {
                scratch.clear();
                scratch.extend(row.iter().flatten());
                scratch.sort_unstable();
                rated.push(scratch.len() as u32);
                let mut i = 0;
                while i < scratch.len() {
                    let c = scratch[i];
                    let mut j = i;
                    while j < scratch.len() && scratch[j] == c {
                        j += 1;
                    }
                    counts.push((c, (j - i) as u32));
                    i = j;
                }
                count_start.push(counts.len());
            }
        }
        Profiles {
            n_raters,
            n_categories: table.categories().len(),
            cells,
            multiplicity,
            unit_profile,
            rated,
            count_start,
            counts,
        }
    }

    pub fn len(&self) -> usize {
        self.multiplicity.len()
    }

    pub fn row(&self, p: usize) -> &[Option<u32>] {
        &self.cells[p * self.n_raters..(p + 1) * self.n_raters]
    }

    pub fn counts(&self, p: usize) -> &[(u32, u32)] {
        &self.counts[self.count_start[p]..self.count_start[p + 1]]
    }

    /// Units with at least one rating.
    pub fn units(&self) -> usize {
        self.unit_profile.len()
    }
}
