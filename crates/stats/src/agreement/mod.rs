//! Inter-rater agreement: pure statistics over a units × raters table of ratings.
//!
//! Nothing here reads files or clocks: a [`RatingTable`] goes in, one [`Coefficient`] record per
//! coefficient comes out (method, units, raters, value), in the manner of R irr's `irrlist`.
//! A value that is not defined for the data (a single category, no pairable unit) is
//! [`Undefined`] with a sentence saying why: never NaN, never a silent 0 or 1.
//!
//! Every coefficient follows one reference implementation, named in its doc comment, and the
//! integration tests check it against values computed by those libraries and against published
//! examples.
//!
//! ```
//! use verity_stats::agreement::{self, Category, Level, RatingTable, Weights};
//!
//! // Two raters, four units, a yes/no scale; the last unit has only one rating.
//! let table = RatingTable::new(
//!     vec!["u1".into(), "u2".into(), "u3".into(), "u4".into()],
//!     vec!["ann".into(), "bob".into()],
//!     vec![Category::label("no"), Category::label("yes")],
//!     Level::Nominal,
//!     vec![Some(1), Some(1), Some(0), Some(0), Some(1), Some(0), Some(1), None],
//! )
//! .expect("a well-formed table");
//! let kappa = agreement::cohen_kappa(&table, 0, 1, Weights::Unweighted).expect("raters exist");
//! assert_eq!(kappa.units, 3);
//! assert!((kappa.value().expect("defined") - 0.4).abs() < 1e-12);
//! ```

// Profiles are parallel arrays (rows, counts, weights) indexed by profile id; index loops
// read better here than zipped iterators over three or four of them.
#![allow(clippy::needless_range_loop)]

mod alpha;
pub mod alt_test;
mod bootstrap;
mod coefficient;
mod error;
mod level;
mod multi;
mod pairwise;
mod profile;
pub mod quality;
mod report;
mod table;

pub use alpha::krippendorff_alpha;
pub use bootstrap::{BootstrapOptions, ConfidenceInterval, bootstrap_ci};
pub use coefficient::{Coefficient, Method, Undefined};
pub use error::AgreementError;
pub use level::{Level, Weights};
pub use multi::{fleiss_kappa, fleiss_kappa_all_units, gwet_ac1, gwet_ac2};
pub use pairwise::{
    ConfusionMatrix, RaterPairMatrix, cohen_kappa, cohen_kappa_matrix, confusion_matrix,
    percent_agreement,
};
pub use report::{
    AgreementReport, AlphaByLevel, CiReport, CohenCi, CohenPair, FewSharedPairs, FleissComplete,
    GwetAc2, GwetAc2Ci, ReportOptions, compute_panel_report, compute_report, render_text,
};
pub use table::{Category, RatingTable};
