//! The evidence engine against real git repositories the tests build, and its receipts rerun
//! with `git grep`; over the real data in `../shared/data` when it is present.

mod evidence;
mod receipts;
