//! The viewer's components: each owns its state, handles the typed [`Action`]s of its
//! keymap [`Context`] and returns what the app must do next, so keys, help and footers
//! (generated from the same contexts) cannot drift. The app holds them and applies their
//! effects to the shared lists.
//!
//! [`Action`]: super::keymap::Action
//! [`Context`]: super::keymap::Context

pub mod adjudicate;
pub mod chart_pick;
pub mod detail_view;
pub mod filter_edit;
pub mod label_panel;
pub mod list;
pub mod overlay;
pub mod run_sort;
pub mod search_box;
pub mod sort;
pub mod text_field;

/// What a component asks of the app after an action: the one answer every component
/// gives (quit never reaches them: the app handles it before any layer sees a key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Nothing beyond its own state changed.
    None,
    /// A text field's text changed.
    Edited,
    /// The filters changed: recompute the lists.
    Refilter,
    /// Keep what was entered and go on (a text field's text, the form's run).
    Confirm,
    /// List the chart's highlighted bucket: of the highlighted run only, or every run.
    Show {
        /// Only the highlighted run.
        one_run: bool,
    },
    /// Leave the layer.
    Close,
}
