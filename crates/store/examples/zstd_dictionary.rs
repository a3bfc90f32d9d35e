//! Whether a zstd dictionary trained on a project's own tasks pays for itself: trains one on
//! every other row of a task file (JSON lines), then compresses each of the other rows alone, as
//! the project file stores them, with and without it, at the level the store uses. Prints the
//! stored sizes and times for whole rows and for their patches alone.
//!
//! `cargo run --release --example zstd_dictionary -- TASKS.jsonl [ROWS]` (used by bench/scale.sh)

use std::io::BufRead;
use std::time::Instant;

use anyhow::{Context, Result};
use zstd::bulk::Compressor;

/// The store's level (src/packed.rs).
const LEVEL: i32 = 1;
/// zstd's own default dictionary size.
const DICTIONARY: usize = 112_640;

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .context("usage: zstd_dictionary TASKS.jsonl [ROWS]")?;
    let limit: usize = match args.next() {
        Some(n) => n.parse().context("ROWS is a number")?,
        None => 4_000,
    };
    let file = std::fs::File::open(&path).with_context(|| format!("cannot open {path}"))?;
    let mut rows = Vec::new();
    let mut patches = Vec::new();
    for line in std::io::BufReader::new(file).lines().take(limit) {
        let line = line.with_context(|| format!("cannot read {path}"))?;
        let value: serde_json::Value =
            serde_json::from_str(&line).with_context(|| format!("{path}: a line is not JSON"))?;
        let patch = ["patch", "test_patch"]
            .iter()
            .filter_map(|k| value.get(k).and_then(|v| v.as_str()))
            .collect::<Vec<_>>()
            .concat();
        patches.push(patch.into_bytes());
        rows.push(line.into_bytes());
    }
    println!(
        "zstd level {LEVEL}, each text compressed alone; dictionary of {} KiB trained on {} rows, \
         measured on the other {}",
        DICTIONARY / 1024,
        rows.len().div_ceil(2),
        rows.len() / 2
    );
    println!(
        "{:<10} {:>9} {:>10} {:>17} {:>7} {:>8} {:>8}",
        "texts", "raw MB", "alone MB", "with a dict. MB", "saved", "train s", "speed"
    );
    for (name, texts) in [("rows", &rows), ("patches", &patches)] {
        let (train, test): (Vec<_>, Vec<_>) =
            texts.iter().enumerate().partition(|(i, _)| i % 2 == 0);
        let train: Vec<&[u8]> = train.into_iter().map(|(_, t)| t.as_slice()).collect();
        let test: Vec<&[u8]> = test.into_iter().map(|(_, t)| t.as_slice()).collect();
        let started = Instant::now();
        let dictionary = zstd::dict::from_samples(&train, DICTIONARY)
            .context("zstd could not train a dictionary on these rows")?;
        let trained = started.elapsed().as_secs_f64();
        let (alone, alone_s) = compress(Compressor::new(LEVEL)?, &test)?;
        let (with, with_s) = compress(Compressor::with_dictionary(LEVEL, &dictionary)?, &test)?;
        let raw: usize = test.iter().map(|t| t.len()).sum();
        let mb = |n: usize| n as f64 / 1e6;
        println!(
            "{name:<10} {:>9.1} {:>10.2} {:>17.2} {:>6.1}% {:>8.2} {:>7.2}x",
            mb(raw),
            mb(alone),
            mb(with),
            100.0 * (1.0 - with as f64 / alone as f64),
            trained,
            alone_s / with_s
        );
    }
    println!(
        "saved: the frames' size with the dictionary against without, not counting the dictionary \
         ({} KiB, stored once per project)",
        DICTIONARY / 1024
    );
    println!("speed: compression speed with the dictionary, as a multiple of the speed without");
    Ok(())
}

/// The total compressed size of `texts`, each alone, and the seconds it took.
fn compress(mut compressor: Compressor<'_>, texts: &[&[u8]]) -> Result<(usize, f64)> {
    let started = Instant::now();
    let mut total = 0;
    for text in texts {
        total += compressor.compress(text)?.len();
    }
    Ok((total, started.elapsed().as_secs_f64()))
}
