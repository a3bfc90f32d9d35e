//! The `verity` command line: parses arguments, calls `annotations::ops`, prints.
//!
//! Exit status: 0 on success, 1 when a check fails, 2 on an error (one sentence on stderr).
//!
//! `schema/` holds what clap parses (one module per family of commands); `commands/` holds
//! each command as a short function of the same family that calls one `ops` function and
//! prints its answer; `output` holds what several commands print with.

use std::io::IsTerminal;
use std::process::ExitCode;

use annotations::ops;
use clap::Parser;

mod commands;
mod output;
mod schema;
mod session;

use schema::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let setup = ops::ProcessSetup {
        reads_clones: matches!(
            cli.command,
            Command::Evidence(_) | Command::Grep(_) | Command::Show(_) | Command::Precedent(_)
        ),
        bounded_memory: matches!(&cli.command, Command::Evidence(args) if args.all),
    };
    // SAFETY: no other thread exists yet: every command starts its own only after this.
    #[allow(unsafe_code)]
    unsafe {
        ops::set_up_process(setup)
    };
    init_logging(cli.verbose);
    match commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("verity: {}", error_sentence(&err));
            ExitCode::from(2)
        }
    }
}

/// Whether the output's reader went away (`verity cases | head`): then the command stops
/// quietly, as Unix tools do. serde_json reports a failed write as its own error, whose
/// source skips the I/O error itself, so it is asked for the error's kind.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| {
                e.downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
            })
            == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes as one sentence. Library messages already end with their source's
/// message (the desktop app shows them alone), so a cause is added only when the text so far
/// does not hold it; anyhow's `{:#}` would print the OS error twice.
fn error_sentence(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let message = cause.to_string();
        if text.contains(&message) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&message);
    }
    text
}

fn init_logging(verbose: u8) {
    let level = match verbose {
        0 => return,
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    // Colour codes only on a terminal: a redirected log is read as text.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(tracing_subscriber::EnvFilter::new(format!(
            "annotations={level},verity={level}"
        )))
        .init();
}
