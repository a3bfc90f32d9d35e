//! Verity's statistics, pure functions of slices: inter-rater agreement with its intervals
//! ([`agreement`]), proportions, paired tests and rank correlation for scores ([`rates`]), the
//! rules that make one label of many ([`ensemble`]), the natural order of names and ids
//! ([`natural`]), the normal and Student's t distributions' quantiles ([`normal`], [`student`]), and prediction-powered
//! estimates from few human labels and a predictor on every task ([`ppi`]). Nothing here reads
//! a file, a clock or a store.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod agreement;
pub mod ensemble;
pub mod natural;
pub mod normal;
pub mod ppi;
pub mod rates;
pub mod student;
