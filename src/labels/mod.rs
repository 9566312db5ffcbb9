//! Hand labels: the taxonomy, append-only persistence, agreement between annotators,
//! adjudication and the blind labelling order.

pub mod agreement;
pub mod blind;
pub mod ranks;
pub mod state;
pub mod store;
pub mod suggest;
pub mod taxonomy;

pub use store::{LabelError, adjudicate, annotator, append, append_record, retract};
pub use taxonomy::{Category, Taxonomy};

/// The annotator name of adjudicated labels (who settled it is in `adjudicator`).
pub(crate) const ADJUDICATED: &str = "adjudicated";
