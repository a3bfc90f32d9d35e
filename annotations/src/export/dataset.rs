//! A dataset folder as the Hugging Face Hub lays one out: each config's split in Parquet shards
//! named `<split>-00000-of-00002.parquet`, a new shard begun once one passes a size.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::thread::JoinHandle;

use super::parquet::{Cell, Column, TableWriter};

/// A shard is closed once it holds this many bytes (counted before the last row group is
/// compressed), so that no file is too large to upload in one request or to read whole; the
/// Hub's own tools shard at 500 MB.
pub const SHARD_BYTES: usize = 256 << 20;

/// One Parquet file written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shard {
    /// Its path in the dataset folder (`data/test-00000-of-00001.parquet`).
    pub path: String,
    /// Its rows.
    pub rows: usize,
    /// Its size.
    pub bytes: u64,
}

/// A split of one config, written a row at a time into shards under `folder`.
pub struct ShardedTable {
    root: PathBuf,
    folder: String,
    split: String,
    columns: Vec<Column>,
    metadata: Vec<(String, String)>,
    shard_bytes: usize,
    current: Option<TableWriter<BufWriter<File>>>,
    /// Each finished shard's partial path and rows.
    done: Vec<(PathBuf, usize)>,
}

impl ShardedTable {
    /// A split written under `root/folder`, shards of at most about `shard_bytes`, each with the
    /// same columns and footer pairs.
    pub fn new(
        root: &Path,
        folder: &str,
        split: &str,
        columns: Vec<Column>,
        metadata: Vec<(String, String)>,
        shard_bytes: usize,
    ) -> std::io::Result<ShardedTable> {
        std::fs::create_dir_all(root.join(folder))?;
        Ok(ShardedTable {
            root: root.to_path_buf(),
            folder: folder.to_string(),
            split: split.to_string(),
            columns,
            metadata,
            shard_bytes: shard_bytes.max(1),
            current: None,
            done: Vec::new(),
        })
    }

    /// A shard's path while the count of shards is unknown.
    fn partial(&self, index: usize) -> PathBuf {
        self.root
            .join(&self.folder)
            .join(format!("{}-{index:05}.partial", self.split))
    }

    /// Adds a row.
    pub fn write_row(&mut self, cells: Vec<Cell>) -> std::io::Result<()> {
        let writer = match &mut self.current {
            Some(writer) => writer,
            None => {
                let file = File::create(self.partial(self.done.len()))?;
                self.current.insert(TableWriter::new(
                    BufWriter::new(file),
                    self.columns.clone(),
                    self.metadata.clone(),
                )?)
            }
        };
        writer.write_row(cells)?;
        if writer.bytes() >= self.shard_bytes {
            self.close_shard()?;
        }
        Ok(())
    }

    fn close_shard(&mut self) -> std::io::Result<()> {
        if let Some(writer) = self.current.take() {
            let rows = writer.rows();
            let file = writer.finish()?.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            self.done.push((self.partial(self.done.len()), rows));
        }
        Ok(())
    }

    /// Closes the last shard and names every shard with the count: returns them in order. A
    /// split without rows is one shard without rows, so its config still reads.
    pub fn finish(mut self) -> std::io::Result<Vec<Shard>> {
        if self.current.is_none() && self.done.is_empty() {
            let file = File::create(self.partial(0))?;
            self.current = Some(TableWriter::new(
                BufWriter::new(file),
                self.columns.clone(),
                self.metadata.clone(),
            )?);
        }
        self.close_shard()?;
        let count = self.done.len();
        let mut shards = Vec::with_capacity(count);
        for (index, (partial, rows)) in self.done.iter().enumerate() {
            let name = format!("{}-{index:05}-of-{count:05}.parquet", self.split);
            let path = self.root.join(&self.folder).join(&name);
            std::fs::rename(partial, &path)?;
            shards.push(Shard {
                path: format!("{}/{name}", self.folder),
                rows: *rows,
                bytes: std::fs::metadata(&path)?.len(),
            });
        }
        Ok(shards)
    }
}

/// Rows handed to the writing thread at once: with one hand-over a row (and a task from the
/// reading thread), waking the threads took an eighth of an export's CPU.
const BATCH_ROWS: usize = 64;

/// Batches waiting for the writing thread: a bound on memory while the reader runs ahead.
const QUEUED_BATCHES: usize = 4;

/// A [`ShardedTable`] written on a thread of its own: encoding and compressing the rows runs
/// beside the reading that makes them.
pub struct BackgroundTable {
    batch: Vec<Vec<Cell>>,
    rows: Option<SyncSender<Vec<Vec<Cell>>>>,
    writer: Option<JoinHandle<std::io::Result<Vec<Shard>>>>,
}

impl BackgroundTable {
    /// Starts the thread that writes `table`.
    pub fn start(mut table: ShardedTable) -> std::io::Result<BackgroundTable> {
        let (rows, queue) = sync_channel::<Vec<Vec<Cell>>>(QUEUED_BATCHES);
        let writer = std::thread::Builder::new()
            .name("dataset writer".into())
            .spawn(move || {
                for batch in queue {
                    for row in batch {
                        table.write_row(row)?;
                    }
                }
                table.finish()
            })?;
        Ok(BackgroundTable {
            batch: Vec::with_capacity(BATCH_ROWS),
            rows: Some(rows),
            writer: Some(writer),
        })
    }

    /// Adds a row, handed to the thread with the rows after it; a thread that stopped on an
    /// error gives that error.
    pub fn write_row(&mut self, cells: Vec<Cell>) -> std::io::Result<()> {
        self.batch.push(cells);
        if self.batch.len() < BATCH_ROWS {
            return Ok(());
        }
        self.hand_over()
    }

    /// Hands the rows added since the last hand-over to the thread.
    fn hand_over(&mut self) -> std::io::Result<()> {
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH_ROWS));
        let sent = self.rows.as_ref().map(|rows| rows.send(batch));
        match sent {
            Some(Ok(())) => Ok(()),
            _ => self
                .join()
                .and_then(|_| Err(std::io::Error::other("the writing thread stopped early"))),
        }
    }

    fn join(&mut self) -> std::io::Result<Vec<Shard>> {
        self.rows = None;
        match self.writer.take() {
            Some(writer) => writer
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("the writing thread failed"))),
            None => Err(std::io::Error::other("the table was finished already")),
        }
    }

    /// Waits for the thread to write the last row and name the shards.
    pub fn finish(mut self) -> std::io::Result<Vec<Shard>> {
        if !self.batch.is_empty() {
            self.hand_over()?;
        }
        self.join()
    }
}

impl Drop for BackgroundTable {
    /// A table given up (the export failed) still waits for its thread, so that nothing writes
    /// into the folder once it is removed.
    fn drop(&mut self) {
        if self.writer.is_some() {
            let _ = self.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::parquet::ColumnKind;

    #[test]
    fn shards_are_named_with_their_count_once_the_split_is_written() {
        let dir = tempfile::tempdir().expect("a folder");
        let mut table = ShardedTable::new(
            dir.path(),
            "data",
            "test",
            vec![Column::new("text", ColumnKind::Text)],
            Vec::new(),
            1,
        )
        .expect("a table");
        for i in 0..3 {
            table
                .write_row(vec![Cell::Text(format!("row {i}"))])
                .expect("a row");
        }
        let shards = table.finish().expect("named");
        let names: Vec<&str> = shards.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(
            names,
            [
                "data/test-00000-of-00003.parquet",
                "data/test-00001-of-00003.parquet",
                "data/test-00002-of-00003.parquet"
            ]
        );
        assert!(shards.iter().all(|s| s.rows == 1 && s.bytes > 0));
        let left: Vec<_> = std::fs::read_dir(dir.path().join("data"))
            .expect("listed")
            .map(|e| e.expect("an entry").file_name())
            .collect();
        assert_eq!(left.len(), 3, "no partial shard is left: {left:?}");

        let empty = ShardedTable::new(
            dir.path(),
            "annotations",
            "test",
            vec![Column::new("text", ColumnKind::Text)],
            Vec::new(),
            SHARD_BYTES,
        )
        .expect("a table");
        let shards = empty.finish().expect("one empty shard");
        assert_eq!(shards.len(), 1);
        assert_eq!(shards[0].rows, 0);
    }

    #[test]
    fn a_table_written_on_its_own_thread_gives_the_same_shards_and_its_errors() {
        let dir = tempfile::tempdir().expect("a folder");
        let table = |folder: &str| {
            ShardedTable::new(
                dir.path(),
                folder,
                "test",
                vec![Column::new("n", ColumnKind::Int)],
                Vec::new(),
                SHARD_BYTES,
            )
            .expect("a table")
        };
        let mut background = BackgroundTable::start(table("data")).expect("a thread");
        for i in 0..1000 {
            background.write_row(vec![Cell::Int(i)]).expect("a row");
        }
        let shards = background.finish().expect("finished");
        assert_eq!(shards.len(), 1);
        assert_eq!(shards[0].rows, 1000);
        let mut background = BackgroundTable::start(table("bad")).expect("a thread");
        background
            .write_row(vec![Cell::Text("not a number".into())])
            .expect("queued");
        let err = (0..BATCH_ROWS * QUEUED_BATCHES * 4)
            .find_map(|i| background.write_row(vec![Cell::Int(i as i64)]).err())
            .unwrap_or_else(|| background.finish().expect_err("an error"));
        assert!(err.to_string().contains("column n"), "{err}");
    }
}
