//! Whole tables on the server, row by row (see [`crate::transfer`]): read in key order,
//! and loaded in one transaction, after which every id sequence moves past the copied ids.

use tokio_postgres::types::ToSql;

use super::{Client, Failure, PgStore};
use crate::StoreError;
use crate::transfer::{Cell, ColumnKind, RowLoad, TABLES, Table, TransferStore, check_row};

impl TransferStore for PgStore {
    fn read_rows(
        &self,
        table: &Table,
        each: &mut dyn FnMut(Vec<Cell>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let names: Vec<&str> = table.columns.iter().map(|c| c.name).collect();
        let order: Vec<String> = table
            .key
            .iter()
            .map(|k| match table.column(k).map(|i| table.columns[i].kind) {
                Some(ColumnKind::Text) => format!("{k} COLLATE \"C\""),
                _ => (*k).to_string(),
            })
            .collect();
        let sql = format!(
            "SELECT {} FROM {} ORDER BY {}",
            names.join(", "),
            table.name,
            order.join(", ")
        );
        let rows = self.run(async |c: &mut Client| Ok(c.query(&sql, &[]).await?))?;
        for row in rows {
            let mut cells = Vec::with_capacity(table.columns.len());
            for (i, column) in table.columns.iter().enumerate() {
                let cell = match column.kind {
                    ColumnKind::Int => row.try_get::<_, Option<i64>>(i).map(|v| v.map(Cell::Int)),
                    ColumnKind::Text => row
                        .try_get::<_, Option<String>>(i)
                        .map(|v| v.map(Cell::Text)),
                }
                .map_err(|e| self.failure(e.into()))?;
                cells.push(cell.unwrap_or(Cell::Null));
            }
            each(cells)?;
        }
        Ok(())
    }

    fn begin_load(&mut self) -> Result<Box<dyn RowLoad + '_>, StoreError> {
        let client = self
            .rt
            .block_on(self.client())
            .map_err(|e| self.failure(e))?;
        let location = self.location.clone();
        self.rt
            .block_on(async {
                client.batch_execute("BEGIN").await?;
                for table in TABLES.iter().filter(|t| t.name != "meta") {
                    let any: bool = client
                        .query_one(
                            &format!("SELECT EXISTS (SELECT 1 FROM {})", table.name),
                            &[],
                        )
                        .await?
                        .try_get(0)?;
                    if any {
                        client.batch_execute("ROLLBACK").await?;
                        return Err(Failure::Store(StoreError::Rule(format!(
                            "{} already holds {}; a project is copied only into a new one",
                            location.display(),
                            table.name
                        ))));
                    }
                }
                Ok(())
            })
            .map_err(|e| self.failure(e))?;
        Ok(Box::new(PgLoad {
            store: self,
            client: Some(client),
        }))
    }
}

struct PgLoad<'s> {
    store: &'s PgStore,
    client: Option<Client>,
}

impl PgLoad<'_> {
    fn on<T>(&self, f: impl AsyncFnOnce(&Client) -> Result<T, Failure>) -> Result<T, StoreError> {
        let client = self.client.as_ref().ok_or_else(|| {
            StoreError::Rule("the copy's connection is gone; nothing was stored".into())
        })?;
        self.store
            .rt
            .block_on(f(client))
            .map_err(|e| self.store.failure(e))
    }
}

impl RowLoad for PgLoad<'_> {
    fn insert_row(&mut self, table: &Table, row: &[Cell]) -> Result<(), StoreError> {
        check_row(table, row)?;
        let names: Vec<&str> = table.columns.iter().map(|c| c.name).collect();
        let marks: Vec<String> = table
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| match c.kind {
                ColumnKind::Int => format!("${}::BIGINT", i + 1),
                ColumnKind::Text => format!("${}::TEXT", i + 1),
            })
            .collect();
        let conflict = if table.name == "meta" {
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        } else {
            ""
        };
        let sql = format!(
            "INSERT INTO {}({}) VALUES ({}){conflict}",
            table.name,
            names.join(", "),
            marks.join(", ")
        );
        let values: Vec<Box<dyn ToSql + Sync + Send>> = table
            .columns
            .iter()
            .zip(row)
            .map(|(column, cell)| -> Box<dyn ToSql + Sync + Send> {
                match (column.kind, cell) {
                    (_, Cell::Int(v)) => Box::new(*v),
                    (_, Cell::Text(v)) => Box::new(v.clone()),
                    (ColumnKind::Int, Cell::Null) => Box::new(None::<i64>),
                    (ColumnKind::Text, Cell::Null) => Box::new(None::<String>),
                }
            })
            .collect();
        let params: Vec<&(dyn ToSql + Sync)> = values
            .iter()
            .map(|v| v.as_ref() as &(dyn ToSql + Sync))
            .collect();
        self.on(async |c: &Client| {
            c.execute(sql.as_str(), &params).await?;
            Ok(())
        })
    }

    fn finish(mut self: Box<Self>) -> Result<(), StoreError> {
        self.on(async |c: &Client| {
            for table in TABLES.iter().filter(|t| t.generated_id) {
                c.execute(
                    &format!(
                        "SELECT setval(pg_get_serial_sequence('verity.{0}', 'id'),
                           COALESCE((SELECT MAX(id) FROM {0}), 0) + 1, false)",
                        table.name
                    ),
                    &[],
                )
                .await?;
            }
            super::access::write_questionnaire_rules(&**c.0).await?;
            c.batch_execute("COMMIT").await?;
            Ok(())
        })?;
        self.client.take();
        Ok(())
    }
}

impl Drop for PgLoad<'_> {
    fn drop(&mut self) {
        if let Some(client) = self.client.take()
            && self
                .store
                .rt
                .block_on(client.batch_execute("ROLLBACK"))
                .is_err()
        {
            client.discard();
        }
    }
}
