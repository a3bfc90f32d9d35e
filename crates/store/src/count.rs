//! Counting the statements a store runs: a diagnostic for the tests that hold a hot path (an
//! autosave) to its number of statements, and for the benchmarks that report it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::trace::{TraceEvent, TraceEventCodes};

/// How many statements a store has run since [`crate::MetaStore::count_statements`] began the
/// count. Clones share one count.
#[derive(Debug, Clone, Default)]
pub struct StatementCount(Arc<AtomicU64>);

impl StatementCount {
    /// The statements run so far.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    /// Counts one statement.
    pub(crate) fn add(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// Has SQLite itself count every statement `conn` runs from now on, as its trace hook hears it
/// begin (`SQLITE_TRACE_STMT`): `BEGIN` and `COMMIT` included, each run of a cached statement
/// once. The hook also hears each trigger program a statement starts, whether its `WHEN` holds
/// or not, and each statement of a trigger's body, as SQLite's comments (`-- TRIGGER name`,
/// `-- INSERT ...`): those are part of the statement that fired them, and not counted.
pub(crate) fn count_sqlite(conn: &mut rusqlite::Connection) -> rusqlite::Result<StatementCount> {
    let count = StatementCount::default();
    let counted = count.clone();
    conn.trace_v2(
        TraceEventCodes::SQLITE_TRACE_STMT,
        Some(move |event: TraceEvent<'_>| {
            if let TraceEvent::Stmt(_, sql) = event
                && !sql.starts_with("--")
            {
                counted.add();
            }
        }),
    )?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn sqlite_counts_each_statement_once_and_its_triggers_as_part_of_it() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE t(x); CREATE TABLE log(x);
             CREATE TRIGGER logged AFTER INSERT ON t BEGIN INSERT INTO log VALUES (NEW.x); END;
             CREATE TRIGGER never BEFORE INSERT ON t WHEN NEW.x IS NULL
             BEGIN SELECT RAISE(ABORT, 'no x'); END;",
        )
        .unwrap();
        let count = count_sqlite(&mut conn).unwrap();
        assert_eq!(count.get(), 0);
        let tx = conn.transaction().unwrap();
        for x in 0..3 {
            tx.prepare_cached("INSERT INTO t VALUES (?1)")
                .unwrap()
                .execute([x])
                .unwrap();
        }
        tx.commit().unwrap();
        // BEGIN, three inserts (each firing both triggers), COMMIT.
        assert_eq!(count.get(), 5);
        let n: i64 = conn
            .query_row("SELECT COUNT(*) FROM log", [], |r| r.get(0))
            .unwrap();
        assert_eq!((n, count.get()), (3, 6));
    }
}
