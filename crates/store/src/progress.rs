//! Progress: how far each rater is on each case, read from indexes alone (no answer is read),
//! so that a project of 50,000 tasks and three raters lists its queues in a fraction of a second.
//! Both backends run the same SQL ([`pair_progress_sql`]).

use super::StoreError;

/// How far a rater is on a case, as the answer events tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PairState {
    /// Assigned, nothing saved.
    Open,
    /// A draft is saved.
    Started,
    /// Submitted (perhaps revised since).
    Submitted,
}

impl PairState {
    /// The state of the number [`pair_progress_sql`] computes (0, 1, 2).
    pub(crate) fn from_code(code: i64) -> Self {
        match code {
            0 => Self::Open,
            1 => Self::Started,
            _ => Self::Submitted,
        }
    }
}

/// One rater's progress on one case: an assignment, or answers saved without one (by an older
/// Verity, or imported).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairProgress {
    /// The case's row id.
    pub case_id: i64,
    /// The rater's row id.
    pub rater_id: i64,
    /// How far they are.
    pub state: PairState,
    /// Active time spent, in milliseconds.
    pub active_ms: i64,
}

/// Whose pairs [`ProgressStore::pair_progress`] reads.
#[derive(Debug, Clone, Copy)]
pub enum PairScope<'a> {
    /// One rater's, every case.
    Rater(i64),
    /// These cases', every rater.
    Cases(&'a [i64]),
}

/// Tells whether anything in the project changed between two readings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangeStamp {
    /// Commits by other connections (SQLite's `data_version`).
    pub(crate) others: i64,
    /// Rows this connection changed (SQLite's `total_changes`).
    pub(crate) own: u64,
}

/// Reads of progress that stay fast at any size.
pub trait ProgressStore {
    /// The pairs of `scope`. A deactivated rater's pairs are left out unless they submitted:
    /// what they did not submit is in no queue.
    fn pair_progress(&self, scope: PairScope<'_>) -> Result<Vec<PairProgress>, StoreError>;

    /// A number that grows whenever a case or a case revision is added: the case list's
    /// titles and ids are the same while it stays the same.
    fn listing_version(&self) -> Result<i64, StoreError>;

    /// A stamp that changes with every write to the project, by this session or another;
    /// `None` where that cannot be told cheaply (a server), so nothing read may be kept.
    fn change_stamp(&self) -> Result<Option<ChangeStamp>, StoreError>;
}

/// The query of [`ProgressStore::pair_progress`], the same on both backends but for `filter`,
/// the scope's condition in the backend's dialect: assignments and answer events of the scope,
/// grouped by pair, each read from an index (`assignments_by_rater` and
/// `answer_events_by_rater_case` for a rater; the primary key and `answer_events_by_case_rater`
/// for cases). Columns: case id, rater id, state (0, 1, 2), active milliseconds.
pub(crate) fn pair_progress_sql(filter: &str) -> String {
    format!(
        "SELECT p.case_id, p.rater_id, MAX(p.state) AS state, MAX(p.active_ms) AS active_ms
         FROM (SELECT case_id, rater_id, 0 AS state, active_ms FROM assignments WHERE {filter}
               UNION ALL
               SELECT case_id, rater_id, CASE WHEN kind = 'submit' THEN 2 ELSE 1 END, 0
               FROM answer_events WHERE {filter}) p
         JOIN raters r ON r.id = p.rater_id
         GROUP BY p.case_id, p.rater_id, r.deactivated_at
         HAVING r.deactivated_at IS NULL OR MAX(p.state) = 2"
    )
}

/// The query of [`ProgressStore::listing_version`] on both backends.
pub(crate) const LISTING_VERSION: &str = "SELECT COALESCE(MAX(id), 0) FROM case_revisions";

impl ProgressStore for super::Store {
    fn pair_progress(&self, scope: PairScope<'_>) -> Result<Vec<PairProgress>, StoreError> {
        // Ids are numbers from the project itself, so they are written into the text.
        let filter = match scope {
            PairScope::Rater(id) => format!("rater_id = {id}"),
            PairScope::Cases(ids) => format!(
                "case_id IN ({})",
                ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
            ),
        };
        let mut stmt = self
            .conn
            .prepare(&pair_progress_sql(&filter))
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |row| {
                Ok(PairProgress {
                    case_id: row.get(0)?,
                    rater_id: row.get(1)?,
                    state: PairState::from_code(row.get(2)?),
                    active_ms: row.get(3)?,
                })
            })
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    fn listing_version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row(LISTING_VERSION, [], |row| row.get(0))
            .map_err(|e| self.sql(e))
    }

    fn change_stamp(&self) -> Result<Option<ChangeStamp>, StoreError> {
        let others = self
            .conn
            .pragma_query_value(None, "data_version", |row| row.get(0))
            .map_err(|e| self.sql(e))?;
        Ok(Some(ChangeStamp {
            others,
            own: self.conn.total_changes(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;
    use crate::repos::case_risks_sql;

    /// The plan SQLite chooses for `sql`, one detail line per step.
    fn plan(store: &Store, sql: &str) -> Vec<String> {
        let mut stmt = store
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .expect("the query is valid");
        stmt.query_map([], |row| row.get::<_, String>(3))
            .expect("a plan")
            .collect::<Result<_, _>>()
            .expect("a plan")
    }

    /// Checks that each table is read through the named index and never scanned whole.
    fn assert_searches(plan: &[String], expected: &[(&str, &str)]) {
        for (table, index) in expected {
            assert!(
                plan.iter()
                    .any(|step| step.starts_with(&format!("SEARCH {table} USING"))
                        && step.contains(index)),
                "{table} is searched through {index}: {plan:#?}"
            );
            assert!(
                !plan
                    .iter()
                    .any(|step| step.starts_with(&format!("SCAN {table}"))),
                "{table} is never scanned whole: {plan:#?}"
            );
        }
    }

    #[test]
    fn a_raters_progress_is_read_through_the_rater_indexes() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = Store::create(&dir.path().join("p.verity")).expect("a project");
        let steps = plan(&store, &pair_progress_sql("rater_id = 1"));
        assert_searches(
            &steps,
            &[
                ("assignments", "COVERING INDEX assignments_by_rater"),
                (
                    "answer_events",
                    "COVERING INDEX answer_events_by_rater_case",
                ),
            ],
        );
    }

    #[test]
    fn risks_are_read_through_their_index_not_the_reports() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = Store::create(&dir.path().join("p.verity")).expect("a project");
        let steps = plan(&store, &case_risks_sql("'evidence-4'", None));
        assert_searches(&steps, &[("e", "COVERING INDEX evidence_cache_risks")]);
    }

    #[test]
    fn a_pages_risks_are_read_from_its_cases_revisions() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = Store::create(&dir.path().join("p.verity")).expect("a project");
        let steps = plan(
            &store,
            &case_risks_sql("'evidence-4'", Some("IN (1, 2, 3)")),
        );
        assert_searches(
            &steps,
            &[
                ("r", "(case_id=?)"),
                ("e", "COVERING INDEX evidence_cache_risks"),
            ],
        );
    }

    #[test]
    fn a_pages_progress_is_read_through_the_case_indexes() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = Store::create(&dir.path().join("p.verity")).expect("a project");
        let steps = plan(&store, &pair_progress_sql("case_id IN (1, 2, 3)"));
        assert_searches(
            &steps,
            &[
                ("assignments", "sqlite_autoindex_assignments_1"),
                ("answer_events", "answer_events_by_case_rater"),
            ],
        );
    }

    #[test]
    fn the_case_list_reads_titles_from_the_listing_index_alone() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = Store::create(&dir.path().join("p.verity")).expect("a project");
        let steps = plan(&store, crate::cases::LIST_CASES);
        assert!(
            steps
                .iter()
                .any(|s| s.starts_with("SEARCH r USING COVERING INDEX case_revisions_listing")),
            "each case's current revision comes from the listing index: {steps:#?}"
        );
        assert!(
            !steps.iter().any(|s| s.starts_with("SCAN r")),
            "revisions are never scanned: {steps:#?}"
        );
    }

    #[test]
    fn the_tasks_shapes_are_read_from_their_index_alone() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = Store::create(&dir.path().join("p.verity")).expect("a project");
        let steps = plan(&store, crate::cases::CASE_SHAPES);
        assert!(
            steps
                .iter()
                .any(|s| s.starts_with("SEARCH r USING COVERING INDEX case_revisions_shapes")),
            "each case's current shape comes from its index, past no task's content: {steps:#?}"
        );
    }
}
