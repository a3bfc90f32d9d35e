//! Output formats: one file per format. Each writer takes rows that `ops` has already read and
//! combined, and writes them; none of them reads the project.

pub mod card;
pub mod case_table;
pub mod dataset;
pub mod openai_annotations;
pub mod openai_ensembled;
pub mod parquet;
pub mod svg;

use std::io::{self, Write};
use std::marker::PhantomData;

/// A CSV writer in the published files' dialect: `\n` line ends, quotes only where needed.
fn csv_writer(out: &mut dyn Write) -> csv::Writer<&mut dyn Write> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .quote_style(csv::QuoteStyle::Necessary)
        .from_writer(out)
}

/// A CSV file in that dialect written a row at a time, its header first, counting its rows:
/// what each format's writer streams through.
pub(crate) struct CsvRows<'a> {
    writer: csv::Writer<&'a mut dyn Write>,
    rows: usize,
}

impl<'a> CsvRows<'a> {
    /// Writes the header.
    pub(crate) fn new<I, F>(out: &'a mut dyn Write, header: I) -> io::Result<Self>
    where
        I: IntoIterator<Item = F>,
        F: AsRef<[u8]>,
    {
        let mut writer = csv_writer(out);
        writer.write_record(header)?;
        Ok(CsvRows { writer, rows: 0 })
    }

    /// Writes one row.
    pub(crate) fn write(&mut self, record: &[String]) -> io::Result<()> {
        self.writer.write_record(record)?;
        self.rows += 1;
        Ok(())
    }

    /// Flushes the file; returns the rows written.
    pub(crate) fn finish(mut self) -> io::Result<usize> {
        self.writer.flush()?;
        Ok(self.rows)
    }
}

/// A row of a file whose columns are fixed: what it writes in each.
pub trait FixedRow {
    /// The file's columns, in order: its header.
    const COLUMNS: &'static [&'static str];

    /// The row's text in `column`, one of [`FixedRow::COLUMNS`].
    fn cell(&self, column: &str) -> String;
}

/// Writes a file of fixed columns a row at a time: the header first, then the rows in the
/// order given.
pub struct FixedWriter<'a, R> {
    rows: CsvRows<'a>,
    row: PhantomData<fn(&R)>,
}

impl<'a, R: FixedRow> FixedWriter<'a, R> {
    /// Writes the header.
    pub fn new(out: &'a mut dyn Write) -> io::Result<Self> {
        Ok(FixedWriter {
            rows: CsvRows::new(out, R::COLUMNS)?,
            row: PhantomData,
        })
    }

    /// Writes one row.
    pub fn write(&mut self, row: &R) -> io::Result<()> {
        let record: Vec<String> = R::COLUMNS.iter().map(|column| row.cell(column)).collect();
        self.rows.write(&record)
    }

    /// Flushes the file; returns the rows written.
    pub fn finish(self) -> io::Result<usize> {
        self.rows.finish()
    }
}
