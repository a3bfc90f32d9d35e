//! Computes agreement on a long-format ratings CSV: the library path `verity agreement` takes
//! (read_ratings + compute_report). bench/agreement.sh keeps it for `--bootstrap-alpha`: the
//! CLI has no way to bootstrap one coefficient alone and time it in-process.
//!
//! Usage: agreement_file FILE [--level L] [--categories a,b,c] [--json]
//!        [--bootstrap N] [--seed S] [--bootstrap-alpha N]
//!
//! `--bootstrap N` adds N-resample intervals for every coefficient; `--bootstrap-alpha N` only
//! bootstraps Krippendorff's alpha at the data's level and prints the interval and its time.

use std::path::PathBuf;
use std::time::Instant;

use annotations::import::ratings_csv::read_ratings;
use anyhow::{Context, bail};
use verity_stats::agreement::{self, BootstrapOptions, Level, Method, ReportOptions};

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}

fn run() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut file: Option<PathBuf> = None;
    let (mut level, mut categories, mut json) = (None, None, false);
    let (mut bootstrap, mut alpha_only, mut seed) = (None, None, 0u64);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--level" => level = Some(value("--level")?.parse::<Level>()?),
            "--categories" => {
                categories = Some(
                    value("--categories")?
                        .split(',')
                        .map(str::to_owned)
                        .collect(),
                )
            }
            "--json" => json = true,
            "--bootstrap" => bootstrap = Some(value("--bootstrap")?.parse::<usize>()?),
            "--bootstrap-alpha" => alpha_only = Some(value("--bootstrap-alpha")?.parse::<usize>()?),
            "--seed" => seed = value("--seed")?.parse()?,
            _ if file.is_none() && !arg.starts_with("--") => file = Some(arg.into()),
            _ => bail!("unexpected argument '{arg}'"),
        }
    }
    let Some(file) = file else {
        bail!("give a ratings CSV file")
    };
    let table = read_ratings(&file, level, categories)?;
    if let Some(resamples) = alpha_only {
        let options = BootstrapOptions {
            resamples,
            seed,
            confidence: 0.95,
        };
        let start = Instant::now();
        let method = Method::KrippendorffAlpha(table.level());
        let ci = agreement::bootstrap_ci(&table, method, None, &options)?;
        let elapsed = start.elapsed();
        match ci {
            Ok(ci) => println!(
                "alpha ({}) 95% CI [{:.4}, {:.4}] from {} resamples in {:.3} s",
                table.level(),
                ci.low,
                ci.high,
                ci.defined,
                elapsed.as_secs_f64()
            ),
            Err(u) => println!("alpha interval undefined: {}", u.reason),
        }
        return Ok(());
    }
    let options = ReportOptions {
        bootstrap: bootstrap.map(|resamples| BootstrapOptions {
            resamples,
            seed,
            confidence: 0.95,
        }),
    };
    let report = agreement::compute_report(&table, &options)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", agreement::render_text(&report));
    }
    Ok(())
}
