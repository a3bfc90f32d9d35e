//! Verity's tasks: a SWE-bench-style case and its texts ([`case`]), the annotation
//! questionnaire with the rules every stored answer meets ([`questionnaire`]), and the one
//! reader of unified diffs ([`patch`]). The lowest layer: it names no other crate of ours.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod case;
pub mod patch;
pub mod questionnaire;
