//! Reading a whole project through the store's transfer interface, to compare two copies.
#![allow(clippy::unwrap_used)]

use verity_store::ProjectStore;
use verity_store::transfer::{Cell, TABLES};

/// Every row of every table, as the transfer interface reads them.
pub fn all_rows(store: &dyn ProjectStore) -> Vec<(&'static str, Vec<Vec<Cell>>)> {
    TABLES
        .iter()
        .map(|table| {
            let mut rows = Vec::new();
            store
                .read_rows(table, &mut |row| {
                    rows.push(row);
                    Ok(())
                })
                .unwrap();
            (table.name, rows)
        })
        .collect()
}
