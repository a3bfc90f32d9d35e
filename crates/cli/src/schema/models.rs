//! `verity models`: model raters (an LLM behind an OpenAI-compatible endpoint) added, listed,
//! removed and run over tasks.

use annotations::ops::{ModelAddRequest, ModelSettings};
use clap::{Args, Subcommand};
use serde::Serialize;

#[derive(Subcommand)]
pub enum ModelsAction {
    /// Add a model rater. The API key is never given: name the environment variable that
    /// holds it (--api-key-env), read when the model rates.
    Add(AddArgs),
    /// List the model raters with their configuration and what their requests cost.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove a model rater that never answered.
    Remove {
        /// The rater's name.
        name: String,
    },
    /// Ask a model rater for each task not yet submitted and store each valid answer as its
    /// submission, with provenance. Replies are cached, so a rerun pays nothing twice; Ctrl-C
    /// stops cleanly.
    Rate {
        /// The rater's name.
        name: String,
        /// The tasks, by id or unique prefix.
        #[arg(long = "case", value_name = "ID", num_args = 1.., required_unless_present = "all", conflicts_with = "all")]
        cases: Vec<String>,
        /// Every task with materials.
        #[arg(long)]
        all: bool,
        /// Requests at once.
        #[arg(long, default_value_t = 4)]
        concurrency: usize,
        /// Stop before a request that could take the run's cost past this many USD.
        #[arg(long, value_name = "X")]
        budget_usd: Option<f64>,
        /// Seconds one request may take before it is retried.
        #[arg(long, default_value_t = 120)]
        timeout: u64,
        /// Print JSON: {"rated", "failed", "skipped", "cost_usd", "input_tokens", "output_tokens"}.
        #[arg(long)]
        json: bool,
    },
    /// Each model rater against the panel's humans, question by question: the alternative
    /// annotator test (Calderon, Reichart and Dror, 2025; each human left out in turn, one-sided
    /// paired t-tests with margin epsilon, Benjamini-Yekutieli, passed when the winning rate is
    /// at least 0.5; at least 30 tasks per human and 2 humans per task), with the model's
    /// weighted kappa against the humans' consensus and alpha with the model as one more rater.
    Compare {
        /// One question, by id or number (every rated question without it).
        #[arg(long, value_name = "Q")]
        question: Option<String>,
        /// The margin epsilon (the paper's 0.2 without it).
        #[arg(long, value_name = "E")]
        epsilon: Option<f64>,
        /// Bootstrap resamples for the agreement figures' intervals.
        #[arg(long, default_value_t = 1000)]
        bootstrap: usize,
        /// The bootstrap's seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print JSON: per model and question {"model", "question", "epsilon", "winning_rate",
        /// "passed", "n_cases", ...}.
        #[arg(long)]
        json: bool,
    },
}

/// What `verity models add` is given.
#[derive(Args)]
pub struct AddArgs {
    /// The rater's name.
    name: String,
    #[command(flatten)]
    settings: SettingsArgs,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// The model's settings as flags: each flag is a key of the core's `ModelSettings` (the flag
/// `--api-key-env` the key `api_key_env`), so the settings are read from them through serde,
/// without a list that maps one to the other (a test checks that both have the same keys).
#[derive(Args, Serialize)]
struct SettingsArgs {
    /// The API's base URL, to which /chat/completions is appended
    /// (https://api.openai.com/v1, http://127.0.0.1:8080/v1).
    #[arg(long)]
    endpoint: String,
    /// The model id sent in each request.
    #[arg(long)]
    model: String,
    /// The environment variable holding the API key.
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// Sampling temperature.
    #[arg(long, value_name = "T")]
    temperature: Option<f64>,
    /// Sampling seed.
    #[arg(long, value_name = "N")]
    seed: Option<i64>,
    /// The most tokens a reply may have.
    #[arg(long, value_name = "N")]
    max_output_tokens: Option<u32>,
    /// USD per million input tokens (unknown when not given, never taken as zero).
    #[arg(long, value_name = "USD_PER_MTOK")]
    price_in: Option<f64>,
    /// USD per million output tokens.
    #[arg(long, value_name = "USD_PER_MTOK")]
    price_out: Option<f64>,
}

impl SettingsArgs {
    fn settings(&self) -> serde_json::Result<ModelSettings> {
        serde_json::to_value(self).and_then(serde_json::from_value)
    }
}

impl AddArgs {
    /// The request to the core (all but `--json`).
    pub fn request(self) -> serde_json::Result<ModelAddRequest> {
        Ok(ModelAddRequest {
            settings: self.settings.settings()?,
            name: self.name,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Add {
        #[command(flatten)]
        add: AddArgs,
    }

    #[test]
    fn every_setting_has_its_flag_and_every_flag_is_a_setting() {
        let add = Add::try_parse_from([
            "add",
            "gpt",
            "--endpoint",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--api-key-env",
            "KEY",
            "--temperature",
            "0.5",
            "--seed",
            "7",
            "--max-output-tokens",
            "400",
            "--price-in",
            "0.15",
            "--price-out",
            "0.6",
        ])
        .expect("every flag parses")
        .add;
        let flags = serde_json::to_value(&add.settings).expect("flags as JSON");
        let request = add.request().expect("the settings read from the flags");
        // Every key is given, so a setting without its flag would be null here, and a flag
        // without its setting would be missing.
        assert_eq!(
            serde_json::to_value(&request.settings).expect("settings as JSON"),
            flags
        );
        assert!(
            flags
                .as_object()
                .is_some_and(|o| o.values().all(|v| !v.is_null()))
        );
        assert_eq!(request.name, "gpt");
    }
}
