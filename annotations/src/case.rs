//! Domain types.
