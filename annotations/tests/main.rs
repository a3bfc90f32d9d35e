//! Verity's integration tests: the `verity` binary, the operations layer, both stores, the
//! evidence engine against real git repositories, the Hub client against a server on loopback.
//! Each module is one area; `util` and `server` are the harnesses they share.

mod server;
mod util;

mod access;
mod agreement;
mod alt_test;
mod bad_input;
mod circles;
mod cli;
mod clone;
mod demo;
mod desktop_ops;
mod endpoint;
mod evidence;
mod front_ends;
mod hostile_text;
mod hub;
mod integrity;
mod long_files;
mod migrate;
mod models;
mod newcomer;
mod ops;
mod packages;
mod panel;
mod quality;
mod readme;
mod receipts;
mod scores;
mod server_access;
mod store_suite;
mod sweep;
