//! The schema of answers: recording, adjudicating, settling conflicts; the questionnaire's questions.

use annotations::ops;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Args)]
pub struct AnswerArgs {
    /// The rater's name.
    #[arg(long)]
    pub rater: String,
    /// The case's instance id.
    #[arg(long = "case")]
    pub case_id: String,
    /// A JSON object of answers.
    #[arg(long)]
    pub file: PathBuf,
    /// Submit (validated against every rule) instead of saving a draft.
    #[arg(long)]
    pub submit: bool,
    /// Why a submitted answer is revised.
    #[arg(long)]
    pub reason: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct QuestionsArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct AdjudicateArgs {
    /// The case's instance id.
    #[arg(long = "case")]
    pub case_id: String,
    /// The question's id.
    #[arg(long)]
    pub question: String,
    /// The final value: one of the question's options.
    #[arg(long)]
    pub value: String,
    /// Why.
    #[arg(long)]
    pub rationale: String,
    /// Who decides: the coordinator, or an adjudicator named with `verity adjudicators add`.
    #[arg(long, default_value = ops::COORDINATOR)]
    pub by: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand)]
pub enum AdjudicatorAction {
    /// Name an adjudicator.
    Add {
        /// The adjudicator's name, as `adjudicate --by` gives it.
        name: String,
    },
    /// Remove a named adjudicator; their decisions stay.
    Remove {
        /// The adjudicator's name.
        name: String,
    },
    /// List the named adjudicators.
    List,
}

#[derive(Subcommand)]
pub enum ConflictAction {
    /// List the open conflicts (with --all, the settled ones too).
    List {
        /// The settled conflicts too.
        #[arg(long)]
        all: bool,
        /// Print them as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Settle a conflict: keep the project's answer, or take the conflict's answer as the
    /// rater's next revision.
    Resolve {
        /// The conflict's number, as `conflicts list` shows it.
        id: i64,
        /// Which answer to keep.
        #[arg(long, value_parser = ["stored", "incoming"])]
        keep: String,
        /// A note kept with the decision.
        #[arg(long)]
        note: Option<String>,
        /// Print the settled conflict as JSON.
        #[arg(long)]
        json: bool,
    },
}
