//! A Parquet table written a row at a time with the parquet crate's low-level writer: text,
//! lists of text, integers, floats and booleans, every column nullable, buffered into row
//! groups of a bounded size so that a table of any length is written in bounded memory.

use std::io::Write;
use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical, ZstdLevel};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnPath, Type};

/// What a column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    /// UTF-8 text (`string` to pyarrow and `datasets`).
    Text,
    /// A list of UTF-8 texts (`list<string>`).
    TextList,
    /// A 64-bit integer.
    Int,
    /// A 64-bit float.
    Float,
    /// A boolean.
    Bool,
}

/// A column of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// What it holds.
    pub kind: ColumnKind,
    /// Whether values repeat often enough for a dictionary (a repository, a label).
    pub dictionary: bool,
}

impl Column {
    /// A column without a dictionary.
    pub fn new(name: impl Into<String>, kind: ColumnKind) -> Column {
        Column {
            name: name.into(),
            kind,
            dictionary: false,
        }
    }

    /// A column of few distinct values, stored with a dictionary.
    pub fn repeated(name: impl Into<String>, kind: ColumnKind) -> Column {
        Column {
            dictionary: true,
            ..Column::new(name, kind)
        }
    }
}

/// One value of a row; `Null` in any column.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// No value.
    Null,
    /// Text.
    Text(String),
    /// A list of texts.
    TextList(Vec<String>),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
}

/// A column's values of the row group being buffered, with their Parquet levels.
struct Buffer {
    values: Values,
    defs: Vec<i16>,
    reps: Vec<i16>,
}

enum Values {
    Bytes(Vec<ByteArray>),
    Ints(Vec<i64>),
    Floats(Vec<f64>),
    Bools(Vec<bool>),
}

impl Buffer {
    fn new(kind: ColumnKind) -> Buffer {
        let values = match kind {
            ColumnKind::Text | ColumnKind::TextList => Values::Bytes(Vec::new()),
            ColumnKind::Int => Values::Ints(Vec::new()),
            ColumnKind::Float => Values::Floats(Vec::new()),
            ColumnKind::Bool => Values::Bools(Vec::new()),
        };
        Buffer {
            values,
            defs: Vec::new(),
            reps: Vec::new(),
        }
    }

    /// Adds a row's cell, one [`fits`] the column; returns its size in bytes.
    fn push(&mut self, kind: ColumnKind, cell: Cell) -> Result<usize, String> {
        let list = kind == ColumnKind::TextList;
        match (cell, &mut self.values) {
            (Cell::Null, _) => {
                self.defs.push(0);
                if list {
                    self.reps.push(0);
                }
                Ok(1)
            }
            (Cell::Text(text), Values::Bytes(values)) if !list => {
                let size = text.len();
                values.push(ByteArray::from(text.into_bytes()));
                self.defs.push(1);
                Ok(size)
            }
            (Cell::TextList(items), Values::Bytes(values)) if list => {
                if items.is_empty() {
                    self.defs.push(1);
                    self.reps.push(0);
                    return Ok(1);
                }
                let mut size = 0;
                for (i, item) in items.into_iter().enumerate() {
                    size += item.len() + 4;
                    values.push(ByteArray::from(item.into_bytes()));
                    self.defs.push(3);
                    self.reps.push(i16::from(i > 0));
                }
                Ok(size)
            }
            (Cell::Int(n), Values::Ints(values)) => {
                values.push(n);
                self.defs.push(1);
                Ok(8)
            }
            (Cell::Float(x), Values::Floats(values)) => {
                values.push(x);
                self.defs.push(1);
                Ok(8)
            }
            (Cell::Bool(b), Values::Bools(values)) => {
                values.push(b);
                self.defs.push(1);
                Ok(1)
            }
            (cell, _) => Err(format!("a {kind:?} column cannot hold {cell:?}")),
        }
    }

    fn clear(&mut self) {
        match &mut self.values {
            Values::Bytes(v) => v.clear(),
            Values::Ints(v) => v.clear(),
            Values::Floats(v) => v.clear(),
            Values::Bools(v) => v.clear(),
        }
        self.defs.clear();
        self.reps.clear();
    }
}

/// Whether a cell can go in a column of this kind.
fn fits(kind: ColumnKind, cell: &Cell) -> bool {
    matches!(
        (kind, cell),
        (_, Cell::Null)
            | (ColumnKind::Text, Cell::Text(_))
            | (ColumnKind::TextList, Cell::TextList(_))
            | (ColumnKind::Int, Cell::Int(_))
            | (ColumnKind::Float, Cell::Float(_))
            | (ColumnKind::Bool, Cell::Bool(_))
    )
}

/// Rows buffered before a row group is written: a bound on memory, and groups small enough for
/// a reader that reads a group at a time (the Hub's dataset viewer).
const ROW_GROUP_BYTES: usize = 32 << 20;
/// At most this many rows to a group, however small the rows.
const ROW_GROUP_ROWS: usize = 10_000;

/// Values encoded at a time, after which a page is closed once it passes Parquet's page size
/// (1 MB): with the writer's default of 1,024, a column of a row group of whole tasks was one
/// page, and compressing it held several copies of the group in memory.
const PAGE_ROWS: usize = 32;

/// A Parquet file written a row at a time.
pub struct TableWriter<W: Write + Send> {
    writer: SerializedFileWriter<W>,
    columns: Vec<Column>,
    buffers: Vec<Buffer>,
    buffered_rows: usize,
    buffered_bytes: usize,
    rows: usize,
}

/// A writer error as an I/O error, for the caller to name the file.
fn io_error(err: ParquetError) -> std::io::Error {
    std::io::Error::other(err.to_string())
}

/// The Parquet schema of the columns, each nullable; a list as the LIST convention has it
/// (`list` groups of an `element`), as pyarrow writes one.
fn schema(columns: &[Column]) -> Result<Type, ParquetError> {
    let fields = columns
        .iter()
        .map(|column| {
            let name = column.name.as_str();
            let primitive = |physical: Physical, logical: Option<LogicalType>| {
                Type::primitive_type_builder(name, physical)
                    .with_repetition(Repetition::OPTIONAL)
                    .with_logical_type(logical)
                    .build()
            };
            let field = match column.kind {
                ColumnKind::Text => primitive(Physical::BYTE_ARRAY, Some(LogicalType::String))?,
                ColumnKind::Int => primitive(Physical::INT64, None)?,
                ColumnKind::Float => primitive(Physical::DOUBLE, None)?,
                ColumnKind::Bool => primitive(Physical::BOOLEAN, None)?,
                ColumnKind::TextList => {
                    let element = Type::primitive_type_builder("element", Physical::BYTE_ARRAY)
                        .with_repetition(Repetition::OPTIONAL)
                        .with_logical_type(Some(LogicalType::String))
                        .build()?;
                    let repeated = Type::group_type_builder("list")
                        .with_repetition(Repetition::REPEATED)
                        .with_fields(vec![Arc::new(element)])
                        .build()?;
                    Type::group_type_builder(name)
                        .with_repetition(Repetition::OPTIONAL)
                        .with_logical_type(Some(LogicalType::List))
                        .with_fields(vec![Arc::new(repeated)])
                        .build()?
                }
            };
            Ok(Arc::new(field))
        })
        .collect::<Result<Vec<_>, ParquetError>>()?;
    Type::group_type_builder("schema")
        .with_fields(fields)
        .build()
}

impl<W: Write + Send> TableWriter<W> {
    /// Starts a file of these columns with these key-value pairs in its footer. Pages are
    /// compressed with zstd; texts go without dictionaries and statistics (a patch's minimum
    /// says nothing and would bloat the footer).
    pub fn new(
        out: W,
        columns: Vec<Column>,
        metadata: Vec<(String, String)>,
    ) -> std::io::Result<TableWriter<W>> {
        let schema = Arc::new(schema(&columns).map_err(io_error)?);
        let level = ZstdLevel::try_new(1).map_err(io_error)?;
        let mut props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(level))
            .set_dictionary_enabled(false)
            .set_write_batch_size(PAGE_ROWS)
            .set_statistics_enabled(EnabledStatistics::None)
            .set_key_value_metadata(Some(
                metadata
                    .into_iter()
                    .map(|(k, v)| KeyValue::new(k, v))
                    .collect(),
            ));
        for column in columns.iter().filter(|c| c.dictionary) {
            props =
                props.set_column_dictionary_enabled(ColumnPath::from(column.name.as_str()), true);
        }
        let writer =
            SerializedFileWriter::new(out, schema, Arc::new(props.build())).map_err(io_error)?;
        let buffers = columns.iter().map(|c| Buffer::new(c.kind)).collect();
        Ok(TableWriter {
            writer,
            columns,
            buffers,
            buffered_rows: 0,
            buffered_bytes: 0,
            rows: 0,
        })
    }

    /// The columns.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Adds a row: one cell per column, in the columns' order.
    pub fn write_row(&mut self, cells: Vec<Cell>) -> std::io::Result<()> {
        if cells.len() != self.columns.len() {
            return Err(std::io::Error::other(format!(
                "a row of {} cells for {} columns",
                cells.len(),
                self.columns.len()
            )));
        }
        // Checked whole first, so a refused row leaves no cell behind.
        if let Some((column, cell)) = self
            .columns
            .iter()
            .zip(&cells)
            .find(|(column, cell)| !fits(column.kind, cell))
        {
            return Err(std::io::Error::other(format!(
                "column {}: a {:?} column cannot hold {cell:?}",
                column.name, column.kind
            )));
        }
        for ((cell, buffer), column) in cells.into_iter().zip(&mut self.buffers).zip(&self.columns)
        {
            let size = buffer
                .push(column.kind, cell)
                .map_err(|why| std::io::Error::other(format!("column {}: {why}", column.name)))?;
            self.buffered_bytes += size;
        }
        self.buffered_rows += 1;
        self.rows += 1;
        if self.buffered_bytes >= ROW_GROUP_BYTES || self.buffered_rows >= ROW_GROUP_ROWS {
            self.flush_group()?;
        }
        Ok(())
    }

    /// Rows written so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Bytes in the file so far, with the rows still buffered counted at their size before
    /// compression: what a shard's size is judged by.
    pub fn bytes(&self) -> usize {
        self.writer.bytes_written() + self.buffered_bytes
    }

    /// Writes the buffered rows as a row group.
    fn flush_group(&mut self) -> std::io::Result<()> {
        if self.buffered_rows == 0 {
            return Ok(());
        }
        let mut group = self.writer.next_row_group().map_err(io_error)?;
        for buffer in &mut self.buffers {
            let mut column = group.next_column().map_err(io_error)?.ok_or_else(|| {
                std::io::Error::other("the schema has fewer columns than the rows")
            })?;
            let defs = Some(buffer.defs.as_slice());
            let reps = (!buffer.reps.is_empty()).then_some(buffer.reps.as_slice());
            match &buffer.values {
                Values::Bytes(values) => column
                    .typed::<ByteArrayType>()
                    .write_batch(values, defs, reps),
                Values::Ints(values) => column.typed::<Int64Type>().write_batch(values, defs, reps),
                Values::Floats(values) => {
                    column.typed::<DoubleType>().write_batch(values, defs, reps)
                }
                Values::Bools(values) => column.typed::<BoolType>().write_batch(values, defs, reps),
            }
            .map_err(io_error)?;
            column.close().map_err(io_error)?;
            buffer.clear();
        }
        group.close().map_err(io_error)?;
        self.buffered_rows = 0;
        self.buffered_bytes = 0;
        Ok(())
    }

    /// Writes the last row group and the footer; returns the sink.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.flush_group()?;
        self.writer.into_inner().map_err(io_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    #[test]
    fn every_kind_of_cell_reads_back_with_nulls_and_empty_lists() {
        let columns = vec![
            Column::new("id", ColumnKind::Text),
            Column::new("tests", ColumnKind::TextList),
            Column::new("n", ColumnKind::Int),
            Column::repeated("share", ColumnKind::Float),
            Column::new("kept", ColumnKind::Bool),
        ];
        let mut writer =
            TableWriter::new(Vec::new(), columns, vec![("verity".into(), "{}".into())])
                .expect("a writer");
        writer
            .write_row(vec![
                Cell::Text("a".into()),
                Cell::TextList(vec!["x".into(), "y".into()]),
                Cell::Int(3),
                Cell::Float(0.5),
                Cell::Bool(true),
            ])
            .expect("row 1");
        writer
            .write_row(vec![
                Cell::Null,
                Cell::TextList(Vec::new()),
                Cell::Null,
                Cell::Null,
                Cell::Bool(false),
            ])
            .expect("row 2");
        writer
            .write_row(vec![
                Cell::Text("c".into()),
                Cell::Null,
                Cell::Int(-1),
                Cell::Float(1.0),
                Cell::Null,
            ])
            .expect("row 3");
        assert!(
            writer
                .write_row(vec![
                    Cell::Int(1),
                    Cell::Null,
                    Cell::Null,
                    Cell::Null,
                    Cell::Null
                ])
                .is_err(),
            "an integer in a text column"
        );
        let bytes = writer.finish().expect("the footer");
        let mut file = tempfile::tempfile().expect("a file");
        file.write_all(&bytes).expect("written");
        let reader = SerializedFileReader::new(file).expect("readable");
        let metadata = reader.metadata().file_metadata();
        assert_eq!(metadata.num_rows(), 3);
        let kv = metadata.key_value_metadata().expect("key-value pairs");
        assert_eq!(kv[0].key, "verity");
        let rows: Vec<String> = reader
            .get_row_iter(None)
            .expect("rows")
            .map(|r| r.expect("a row").to_string())
            .collect();
        assert_eq!(
            rows,
            [
                r#"{id: "a", tests: ["x", "y"], n: 3, share: 0.5, kept: true}"#,
                r#"{id: null, tests: [], n: null, share: null, kept: false}"#,
                r#"{id: "c", tests: null, n: -1, share: 1.0, kept: null}"#,
            ]
        );
    }
}
