//! Reading a long-format ratings CSV (`unit,rater,value`, one row per rating) into a
//! [`RatingTable`].
//!
//! A missing rating is a missing row, or a row whose value cell is empty (as exports of a wide
//! table write it, and as the `krippendorff` package's NaN means it). Values are integers, decimals or category labels. A
//! declared category list gives the scale and its order; without one, numbers are ordered
//! numerically and labels form a nominal scale.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::{Path, PathBuf};

use verity_stats::agreement::{AgreementError, Category, Level, RatingTable};

/// Why a ratings file could not be read. Every message names the file, and the line when one
/// line is at fault.
#[derive(Debug, thiserror::Error)]
pub enum RatingsError {
    /// The file could not be opened or read.
    #[error("could not read ratings file {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The CSV itself is malformed (for example an unterminated quote).
    #[error("{}, line {line}: this is not valid CSV: {source}", path.display())]
    Csv {
        /// The file.
        path: PathBuf,
        /// The line.
        line: u64,
        /// The parser's error.
        source: csv::Error,
    },
    /// The file has no header.
    #[error("{} is empty; a ratings file starts with the header `unit,rater,value` and has one row per rating", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The header is not `unit,rater,value`.
    #[error("{}, line 1: the header is `{found}`, but a ratings file's header must be `unit,rater,value`", path.display())]
    Header {
        /// The file.
        path: PathBuf,
        /// The header as found.
        found: String,
    },
    /// A header and nothing else.
    #[error("{} has a header but no ratings", path.display())]
    NoRatings {
        /// The file.
        path: PathBuf,
    },
    /// A row without exactly three fields.
    #[error("{}, line {line}: expected 3 fields (unit,rater,value), found {found}", path.display())]
    FieldCount {
        /// The file.
        path: PathBuf,
        /// The line.
        line: u64,
        /// Fields found.
        found: usize,
    },
    /// An empty unit or rater.
    #[error("{}, line {line}: the {field} is empty; every rating names its unit and its rater", path.display())]
    EmptyField {
        /// The file.
        path: PathBuf,
        /// The line.
        line: u64,
        /// `unit` or `rater`.
        field: &'static str,
    },
    /// A field that is not UTF-8 text.
    #[error("{}, line {line}: the {field} is not valid UTF-8 text", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The line.
        line: u64,
        /// `unit`, `rater` or `value`.
        field: &'static str,
    },
    /// The same rater rated the same unit twice.
    #[error("{}, line {line}: rater '{rater}' already rated unit '{unit}' on line {first_line}; a rater gives each unit one rating", path.display())]
    DuplicateRating {
        /// The file.
        path: PathBuf,
        /// The line of the second rating.
        line: u64,
        /// The line of the first.
        first_line: u64,
        /// The unit.
        unit: String,
        /// The rater.
        rater: String,
    },
    /// A value that is not among the declared categories.
    #[error("{}, line {line}: value '{value}' is not one of the declared categories ({categories})", path.display())]
    OutsideCategories {
        /// The file.
        path: PathBuf,
        /// The line.
        line: u64,
        /// The value.
        value: String,
        /// The declared categories, comma-separated.
        categories: String,
    },
    /// A non-numeric value at the interval or ratio level.
    #[error("{}, line {line}: value '{value}' is not a number, but the {level} level needs numbers", path.display())]
    NotNumeric {
        /// The file.
        path: PathBuf,
        /// The line.
        line: u64,
        /// The value.
        value: String,
        /// The level asked for.
        level: Level,
    },
    /// A non-numeric value at the ordinal level without declared categories.
    #[error("{}, line {line}: value '{value}' is not a number, so the ordinal level needs --categories to give the order of the values", path.display())]
    Unordered {
        /// The file.
        path: PathBuf,
        /// The line.
        line: u64,
        /// The value.
        value: String,
    },
    /// A negative value at the ratio level.
    #[error("{}, line {line}: value '{value}' is negative, but the ratio level needs values of zero or more", path.display())]
    NegativeRatio {
        /// The file.
        path: PathBuf,
        /// The line.
        line: u64,
        /// The value.
        value: String,
    },
    /// A declared category that is not a number at the interval or ratio level.
    #[error("declared category '{category}' is not a number, but the {level} level needs numbers (reading {})", path.display())]
    NonNumericCategory {
        /// The file.
        path: PathBuf,
        /// The category.
        category: String,
        /// The level asked for.
        level: Level,
    },
    /// A category declared twice.
    #[error("category '{category}' is declared twice (reading {})", path.display())]
    DuplicateCategory {
        /// The file.
        path: PathBuf,
        /// The category.
        category: String,
    },
    /// The ratings do not make a valid table.
    #[error("{}: {source}", path.display())]
    Table {
        /// The file.
        path: PathBuf,
        /// The table's complaint.
        source: AgreementError,
    },
}

struct Interner {
    ids: HashMap<Box<[u8]>, u32>,
    names: Vec<String>,
    first_line: Vec<u64>,
}

impl Interner {
    fn new() -> Self {
        Interner {
            ids: HashMap::new(),
            names: Vec::new(),
            first_line: Vec::new(),
        }
    }

    fn intern(
        &mut self,
        bytes: &[u8],
        line: u64,
        path: &Path,
        field: &'static str,
    ) -> Result<u32, RatingsError> {
        if let Some(&id) = self.ids.get(bytes) {
            return Ok(id);
        }
        if bytes.is_empty() {
            return Err(RatingsError::EmptyField {
                path: path.to_owned(),
                line,
                field,
            });
        }
        let name = std::str::from_utf8(bytes).map_err(|_| RatingsError::NotUtf8 {
            path: path.to_owned(),
            line,
            field,
        })?;
        let id = self.names.len() as u32;
        self.ids.insert(bytes.into(), id);
        self.names.push(name.to_owned());
        self.first_line.push(line);
        Ok(id)
    }
}

fn parse_number(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Reads a ratings file.
///
/// `level` defaults to ordinal when the values are numbers or `categories` are declared, and to
/// nominal for labels. `categories` declares the scale in order; a value matches a category by
/// its text, or by its number when both are numbers (`1.0` matches `1`). Refuses, naming the
/// file and line: a wrong header, an empty file, a row without three fields, an empty unit or
/// rater, a duplicate (unit, rater), a value outside the declared categories, a non-number at the
/// interval or ratio level, a negative number at the ratio level.
pub fn read_ratings(
    path: &Path,
    level: Option<Level>,
    categories: Option<Vec<String>>,
) -> Result<RatingTable, RatingsError> {
    let file = std::fs::File::open(path).map_err(|source| RatingsError::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .buffer_capacity(1 << 16)
        .from_reader(std::io::BufReader::with_capacity(1 << 16, file));
    let mut record = csv::ByteRecord::new();
    let read =
        |reader: &mut csv::Reader<_>, record: &mut csv::ByteRecord| -> Result<bool, RatingsError> {
            reader.read_byte_record(record).map_err(|source| {
                let line = source.position().map_or(0, |p| p.line());
                match source.kind() {
                    csv::ErrorKind::Io(_) => RatingsError::Io {
                        path: path.to_owned(),
                        source: std::io::Error::other(source.to_string()),
                    },
                    _ => RatingsError::Csv {
                        path: path.to_owned(),
                        line,
                        source,
                    },
                }
            })
        };
    if !read(&mut reader, &mut record)? {
        return Err(RatingsError::Empty {
            path: path.to_owned(),
        });
    }
    let header: Vec<String> = record
        .iter()
        .map(|f| {
            String::from_utf8_lossy(f)
                .trim_start_matches('\u{feff}')
                .trim()
                .to_owned()
        })
        .collect();
    if header.len() != 3
        || !header[0].eq_ignore_ascii_case("unit")
        || !header[1].eq_ignore_ascii_case("rater")
        || !header[2].eq_ignore_ascii_case("value")
    {
        return Err(RatingsError::Header {
            path: path.to_owned(),
            found: header.join(","),
        });
    }

    let mut units = Interner::new();
    let mut raters = Interner::new();
    let mut values = Interner::new();
    let mut rows: Vec<(u32, u32, u32, u64)> = Vec::new();
    while read(&mut reader, &mut record)? {
        let line = record.position().map_or(0, |p| p.line());
        if record.len() != 3 {
            // A blank line reads as one empty field: skip it rather than complain.
            if record.len() == 1 && record[0].is_empty() {
                continue;
            }
            return Err(RatingsError::FieldCount {
                path: path.to_owned(),
                line,
                found: record.len(),
            });
        }
        if record[2].is_empty() {
            // A missing rating: the same as leaving the row out, so it adds no unit, rater or
            // category "" and cannot clash with the pair's real rating.
            for (i, field) in [(0, "unit"), (1, "rater")] {
                if record[i].is_empty() {
                    return Err(RatingsError::EmptyField {
                        path: path.to_owned(),
                        line,
                        field,
                    });
                }
            }
            continue;
        }
        let u = units.intern(&record[0], line, path, "unit")?;
        let r = raters.intern(&record[1], line, path, "rater")?;
        let v = values.intern(&record[2], line, path, "value")?;
        rows.push((u, r, v, line));
    }
    if rows.is_empty() {
        return Err(RatingsError::NoRatings {
            path: path.to_owned(),
        });
    }

    let (scale, value_category, level) = resolve_scale(path, &values, level, categories)?;

    // Raters in name order, so reports and pair keys do not depend on row order.
    let mut rater_order: Vec<u32> = (0..raters.names.len() as u32).collect();
    rater_order.sort_by(|&a, &b| raters.names[a as usize].cmp(&raters.names[b as usize]));
    let mut rater_column = vec![0usize; raters.names.len()];
    for (column, &r) in rater_order.iter().enumerate() {
        rater_column[r as usize] = column;
    }
    let n_raters = raters.names.len();
    let mut cells: Vec<Option<u32>> = vec![None; units.names.len() * n_raters];
    for &(u, r, v, line) in &rows {
        let cell = &mut cells[u as usize * n_raters + rater_column[r as usize]];
        if cell.is_some() {
            let first_line = rows
                .iter()
                .find(|&&(u2, r2, _, _)| u2 == u && r2 == r)
                .map_or(0, |&(_, _, _, l)| l);
            return Err(RatingsError::DuplicateRating {
                path: path.to_owned(),
                line,
                first_line,
                unit: units.names[u as usize].clone(),
                rater: raters.names[r as usize].clone(),
            });
        }
        *cell = Some(value_category[v as usize]);
    }
    let rater_names = rater_order
        .iter()
        .map(|&r| raters.names[r as usize].clone())
        .collect();
    RatingTable::new(units.names, rater_names, scale, level, cells).map_err(|source| {
        RatingsError::Table {
            path: path.to_owned(),
            source,
        }
    })
}

/// The scale, each distinct value's category index, and the level.
fn resolve_scale(
    path: &Path,
    values: &Interner,
    level: Option<Level>,
    categories: Option<Vec<String>>,
) -> Result<(Vec<Category>, Vec<u32>, Level), RatingsError> {
    let numeric: Vec<Option<f64>> = values.names.iter().map(|v| parse_number(v)).collect();
    // Distinct values in order of first appearance, so the first complaint is the earliest line.
    let mut by_line: Vec<usize> = (0..values.names.len()).collect();
    by_line.sort_by_key(|&v| values.first_line[v]);

    if let Some(declared) = categories {
        let level = level.unwrap_or(Level::Ordinal);
        let mut index: HashMap<&str, u32> = HashMap::new();
        let mut scale = Vec::with_capacity(declared.len());
        for (i, c) in declared.iter().enumerate() {
            if index.insert(c.as_str(), i as u32).is_some() {
                return Err(RatingsError::DuplicateCategory {
                    path: path.to_owned(),
                    category: c.clone(),
                });
            }
            scale.push(match parse_number(c) {
                Some(x) => Category::labelled_number(c.clone(), x),
                None => Category::label(c.clone()),
            });
        }
        if matches!(level, Level::Interval | Level::Ratio)
            && let Some(c) = scale.iter().find(|c| c.value.is_none())
        {
            return Err(RatingsError::NonNumericCategory {
                path: path.to_owned(),
                category: c.label.clone(),
                level,
            });
        }
        let mut value_category = vec![0u32; values.names.len()];
        for &v in &by_line {
            let name = &values.names[v];
            let found = index.get(name.as_str()).copied().or_else(|| {
                let x = numeric[v]?;
                scale
                    .iter()
                    .position(|c| c.value == Some(x))
                    .map(|i| i as u32)
            });
            match found {
                Some(i) => value_category[v] = i,
                None => {
                    return Err(RatingsError::OutsideCategories {
                        path: path.to_owned(),
                        line: values.first_line[v],
                        value: name.clone(),
                        categories: declared.join(", "),
                    });
                }
            }
        }
        check_ratio(path, values, &by_line, &numeric, level)?;
        return Ok((scale, value_category, level));
    }

    if let Some(&v) = by_line.iter().find(|&&v| numeric[v].is_none()) {
        let level = level.unwrap_or(Level::Nominal);
        let value = values.names[v].clone();
        let line = values.first_line[v];
        match level {
            Level::Interval | Level::Ratio => {
                return Err(RatingsError::NotNumeric {
                    path: path.to_owned(),
                    line,
                    value,
                    level,
                });
            }
            Level::Ordinal => {
                return Err(RatingsError::Unordered {
                    path: path.to_owned(),
                    line,
                    value,
                });
            }
            Level::Nominal => {}
        }
        let mut order: Vec<usize> = (0..values.names.len()).collect();
        order.sort_by(|&a, &b| values.names[a].cmp(&values.names[b]));
        let mut value_category = vec![0u32; values.names.len()];
        let mut scale = Vec::with_capacity(order.len());
        for (i, &v) in order.iter().enumerate() {
            value_category[v] = i as u32;
            scale.push(Category::label(values.names[v].clone()));
        }
        return Ok((scale, value_category, level));
    }

    // Every value is a number: one category per distinct number, in numeric order, labelled as
    // first written.
    let level = level.unwrap_or(Level::Ordinal);
    check_ratio(path, values, &by_line, &numeric, level)?;
    let mut distinct: Vec<(f64, usize)> = by_line
        .iter()
        .map(|&v| (numeric[v].unwrap_or(0.0), v))
        .collect();
    distinct.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then(values.first_line[a.1].cmp(&values.first_line[b.1]))
    });
    let mut value_category = vec![0u32; values.names.len()];
    let mut scale: Vec<Category> = Vec::new();
    let mut seen: HashMap<u64, u32> = HashMap::new();
    for (x, v) in distinct {
        // `0.0` and `-0.0` are one number.
        let key = if x == 0.0 {
            0f64.to_bits()
        } else {
            x.to_bits()
        };
        let id = match seen.entry(key) {
            Entry::Occupied(e) => *e.get(),
            Entry::Vacant(e) => {
                scale.push(Category::labelled_number(values.names[v].clone(), x));
                *e.insert(scale.len() as u32 - 1)
            }
        };
        value_category[v] = id;
    }
    Ok((scale, value_category, level))
}

fn check_ratio(
    path: &Path,
    values: &Interner,
    by_line: &[usize],
    numeric: &[Option<f64>],
    level: Level,
) -> Result<(), RatingsError> {
    if level != Level::Ratio {
        return Ok(());
    }
    for &v in by_line {
        match numeric[v] {
            Some(x) if x < 0.0 => {
                return Err(RatingsError::NegativeRatio {
                    path: path.to_owned(),
                    line: values.first_line[v],
                    value: values.names[v].clone(),
                });
            }
            None => {
                return Err(RatingsError::NotNumeric {
                    path: path.to_owned(),
                    line: values.first_line[v],
                    value: values.names[v].clone(),
                    level,
                });
            }
            _ => {}
        }
    }
    Ok(())
}
