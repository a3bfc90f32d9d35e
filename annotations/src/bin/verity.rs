//! The `verity` command line.
fn main() {}
