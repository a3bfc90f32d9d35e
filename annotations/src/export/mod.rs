//! Output formats: one file per format. Each writer takes rows that `ops` has already read and
//! combined, and writes them; none of them reads the project.

pub mod case_table;
pub mod openai_annotations;
pub mod openai_ensembled;
pub mod svg;

use std::io::{self, Write};

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
