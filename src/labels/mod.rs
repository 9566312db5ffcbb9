//! Hand labels: the taxonomy, append-only persistence, agreement between annotators,
//! adjudication and the blind labelling order.

pub mod store;
pub mod taxonomy;

pub use store::{LabelError, annotator, append, append_record};
pub use taxonomy::{Category, Taxonomy};
