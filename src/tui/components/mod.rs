//! The viewer's components: each owns its state, handles the typed [`Action`]s of its
//! keymap [`Context`] and returns what the app must do next, so keys, help and footers
//! (generated from the same contexts) cannot drift. The app holds them and applies their
//! effects to the shared lists.
//!
//! [`Action`]: super::keymap::Action
//! [`Context`]: super::keymap::Context

pub mod chart_pick;
pub mod detail_view;
pub mod filter_edit;
pub mod label_panel;
pub mod list;
pub mod overlay;
pub mod search_box;
pub mod sort;
pub mod text_field;

/// What a component asks of the app after an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Nothing beyond its own state changed.
    None,
    /// The filters changed: recompute the lists.
    Refilter,
    /// Leave the mode.
    Close,
    /// Quit the viewer.
    Quit,
}
