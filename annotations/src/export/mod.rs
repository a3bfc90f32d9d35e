//! Output formats: one file per format. Each writer takes rows that `ops` has already read and
//! combined, and writes them; none of them reads the project.

pub mod case_table;
pub mod openai_annotations;
pub mod openai_ensembled;
pub mod svg;

/// A CSV writer in the published files' dialect: `\n` line ends, quotes only where needed.
pub(crate) fn csv_writer(out: &mut dyn std::io::Write) -> csv::Writer<&mut dyn std::io::Write> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .quote_style(csv::QuoteStyle::Necessary)
        .from_writer(out)
}
