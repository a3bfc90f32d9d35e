//! The random samples humans rate (`verity assign --sample`): each draw with how it was made,
//! and every task it offered with the probability it gave that task and whether it was drawn
//! (with each task an earlier draw took, and the probability this draw would have given it),
//! so that an estimate knows what is a random sample and how to weigh it. The coordinator's
//! alone: no rater's package carries it and a rater's login reads none of it.

use rusqlite::params;

use super::shared::Cells;
use super::{Store, StoreError};
use crate::sqlite::sql_err;

/// The file schema's migration 16 (see `migrations.rs`). A probability is kept as the shortest
/// decimal text that reads back to the same number.
pub(super) const MIGRATION: &str = r#"
CREATE TABLE sample_draws (
    id        INTEGER PRIMARY KEY,
    method    TEXT NOT NULL CHECK (method IN ('uniform', 'uncertainty')),
    seed      INTEGER NOT NULL,
    size      INTEGER NOT NULL,
    per_case  INTEGER NOT NULL,
    predictor TEXT,
    label     TEXT,
    floor     TEXT,
    drawn_at  TEXT NOT NULL
);
CREATE TABLE sample_frame (
    draw_id     INTEGER NOT NULL REFERENCES sample_draws(id),
    case_id     INTEGER NOT NULL REFERENCES cases(id),
    probability TEXT NOT NULL,
    drawn       INTEGER NOT NULL CHECK (drawn IN (0, 1)),
    PRIMARY KEY (draw_id, case_id)
);
"#;

/// A draw as recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleDraw {
    /// Its row id; later draws have larger ones.
    pub id: i64,
    /// `uniform` or `uncertainty`.
    pub method: String,
    /// The seed it was drawn from (a `u64`'s bits).
    pub seed: i64,
    /// Tasks drawn.
    pub size: i64,
    /// Raters given each drawn task.
    pub per_case: i64,
    /// The predictor whose uncertainty weighed the draw.
    pub predictor: Option<String>,
    /// The label that predictor's uncertainty was taken for.
    pub label: Option<String>,
    /// The floor of the probabilities, as a share of the uniform one.
    pub floor: Option<f64>,
    /// When.
    pub drawn_at: String,
}

/// One task a draw offered.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameRow {
    /// The draw.
    pub draw_id: i64,
    /// The task's case row id.
    pub case_id: i64,
    /// The probability the draw gave it.
    pub probability: f64,
    /// Whether it was drawn.
    pub drawn: bool,
}

/// The random samples of a project.
pub trait SampleStore {
    /// Records a draw (its `id` is ignored: the store gives one), every task it offered as
    /// (case row id, probability, drawn), and the drawn tasks' assignments (case, rater), in one
    /// transaction; the draw's id and the assignments added.
    fn put_sample_draw(
        &mut self,
        draw: &SampleDraw,
        frame: &[(i64, f64, bool)],
        assignments: &[(i64, i64)],
    ) -> Result<(i64, usize), StoreError>;

    /// Every draw, oldest first.
    fn sample_draws(&self) -> Result<Vec<SampleDraw>, StoreError>;

    /// Every task every draw offered, by draw then case.
    fn sample_frame(&self) -> Result<Vec<FrameRow>, StoreError>;
}

/// Every draw, oldest first, in both dialects.
pub(crate) const DRAWS: &str = "SELECT id, method, seed, size, per_case, predictor, label, floor, drawn_at \
     FROM sample_draws ORDER BY id";

/// Every offered task, in both dialects.
pub(crate) const FRAME: &str =
    "SELECT draw_id, case_id, probability, drawn FROM sample_frame ORDER BY draw_id, case_id";

/// A number stored as text, read back; `what` names it in the error.
fn number(text: &str, what: &'static str, path: &std::path::Path) -> Result<f64, StoreError> {
    text.parse::<f64>().map_err(|_| StoreError::Damaged {
        path: path.to_path_buf(),
        what,
        reason: format!("{text:?} is not a number"),
    })
}

/// A draw from a row of [`DRAWS`].
pub(crate) fn draw(row: &impl Cells, path: &std::path::Path) -> Result<SampleDraw, StoreError> {
    let floor: Option<String> = row.cell(7)?;
    Ok(SampleDraw {
        id: row.cell(0)?,
        method: row.cell(1)?,
        seed: row.cell(2)?,
        size: row.cell(3)?,
        per_case: row.cell(4)?,
        predictor: row.cell(5)?,
        label: row.cell(6)?,
        floor: floor.map(|f| number(&f, "sample draw", path)).transpose()?,
        drawn_at: row.cell(8)?,
    })
}

/// An offered task from a row of [`FRAME`].
pub(crate) fn frame_row(row: &impl Cells, path: &std::path::Path) -> Result<FrameRow, StoreError> {
    let probability: String = row.cell(2)?;
    let drawn: i64 = row.cell(3)?;
    Ok(FrameRow {
        draw_id: row.cell(0)?,
        case_id: row.cell(1)?,
        probability: number(&probability, "sample frame", path)?,
        drawn: drawn != 0,
    })
}

impl SampleStore for Store {
    fn put_sample_draw(
        &mut self,
        draw: &SampleDraw,
        frame: &[(i64, f64, bool)],
        assignments: &[(i64, i64)],
    ) -> Result<(i64, usize), StoreError> {
        let sql = |e| sql_err(&self.path, e);
        let tx = self.conn.transaction().map_err(sql)?;
        let id: i64 = tx
            .query_row(
                "INSERT INTO sample_draws(method, seed, size, per_case, predictor, label, floor, drawn_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING id",
                params![
                    draw.method,
                    draw.seed,
                    draw.size,
                    draw.per_case,
                    draw.predictor,
                    draw.label,
                    draw.floor.map(|f| f.to_string()),
                    draw.drawn_at
                ],
                |row| row.get(0),
            )
            .map_err(sql)?;
        let mut added = 0;
        {
            let mut offered = tx
                .prepare(
                    "INSERT INTO sample_frame(draw_id, case_id, probability, drawn) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(sql)?;
            for (case_id, probability, drawn) in frame {
                offered
                    .execute(params![
                        id,
                        case_id,
                        probability.to_string(),
                        i64::from(*drawn)
                    ])
                    .map_err(sql)?;
            }
            let mut assign = tx
                .prepare(
                    "INSERT OR IGNORE INTO assignments(case_id, rater_id, assigned_at) VALUES (?1, ?2, ?3)",
                )
                .map_err(sql)?;
            for (case_id, rater_id) in assignments {
                added += assign
                    .execute(params![case_id, rater_id, draw.drawn_at])
                    .map_err(sql)?;
            }
        }
        tx.commit().map_err(sql)?;
        Ok((id, added))
    }

    fn sample_draws(&self) -> Result<Vec<SampleDraw>, StoreError> {
        self.decode(DRAWS, [], |row| draw(row, &self.path))
    }

    fn sample_frame(&self) -> Result<Vec<FrameRow>, StoreError> {
        self.decode(FRAME, [], |row| frame_row(row, &self.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probabilities_read_back_to_the_same_number() {
        for p in [0.1, 1.0 / 3.0, 0.9, 1e-7, 0.123_456_789_012_345_67] {
            let path = std::path::Path::new("p.verity");
            assert_eq!(number(&p.to_string(), "sample frame", path).ok(), Some(p));
        }
        assert!(number("x", "sample frame", std::path::Path::new("p")).is_err());
    }
}
