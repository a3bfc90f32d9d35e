//! The `verity` binary's tests: every command as a user runs it, bad input and bad moments,
//! clones and the Hub on 127.0.0.1, model raters against a Chat Completions server, server
//! projects as a rater's login, and the command reference against `verity -h`. `util` is the
//! harness (a temporary project and the binary); the servers are `verity-testkit`'s.

mod util;

mod bad_input;
mod cli;
mod clone;
mod estimate;
mod hub;
mod integrity;
mod models;
mod newcomer;
mod panel;
mod publish;
mod quality;
mod readme;
mod scores;
mod server_access;
mod sweep;
