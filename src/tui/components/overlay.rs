//! Overlays (help, compare, warnings, label counts, run summary): scrolling and closing.

use super::super::keymap::{Action, Context};
use super::Effect;

/// An overlay's scroll position (the long ones scroll).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overlay {
    /// Rows scrolled.
    pub scroll: u16,
    /// Rows the overlay shows and the farthest scroll, as last drawn (0: not drawn
    /// yet): a page is a screenful, and scrolling stops at the end.
    pub shown: std::cell::Cell<(u16, u16)>,
}

impl Overlay {
    /// The keymap context whose bindings drive it.
    pub const CONTEXT: Context = Context::Overlay;
    /// Farther than any overlay is long.
    const MAX: i32 = 400;

    /// Back at the top (when an overlay opens).
    pub fn reset(&mut self) {
        self.scroll = 0;
    }

    /// Handles an action; `scrolls` says whether this overlay is long enough to scroll.
    /// The action that opened an overlay closes it too.
    pub fn handle(&mut self, a: Action, scrolls: bool) -> Effect {
        let step: i32 = match a {
            Action::Up => -1,
            Action::Down => 1,
            // A screenful less one line (the line kept for context).
            Action::PageUp => -page(self.shown.get().0),
            Action::PageDown => page(self.shown.get().0),
            Action::Top => -10_000,
            Action::Bottom => 10_000,
            _ => 0,
        };
        if scrolls && step != 0 {
            let end = match self.shown.get().1 {
                0 => Self::MAX,
                m => i32::from(m),
            };
            self.scroll = (i32::from(self.scroll) + step).clamp(0, end) as u16;
            return Effect::None;
        }
        match a {
            Action::Back
            | Action::Help
            | Action::Compare
            | Action::Warnings
            | Action::Open
            | Action::LabelCounts
            | Action::RunSummary
            | Action::Copy => Effect::Close,
            _ => Effect::None,
        }
    }
}

/// Rows a page key moves over an overlay showing `rows` (10 before it is drawn).
fn page(rows: u16) -> i32 {
    if rows == 0 {
        10
    } else {
        i32::from(rows.saturating_sub(1).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrolls_within_bounds_and_closes_on_its_own_key() {
        let mut o = Overlay::default();
        assert_eq!(o.handle(Action::Up, true), Effect::None);
        assert_eq!(o.scroll, 0);
        o.handle(Action::PageDown, true);
        o.handle(Action::Down, true);
        assert_eq!(o.scroll, 11);
        o.handle(Action::Bottom, true);
        assert_eq!(o.scroll, 400);
        assert_eq!(
            o.handle(Action::Down, false),
            Effect::None,
            "a short overlay ignores it"
        );
        assert_eq!(o.handle(Action::Compare, true), Effect::Close);
    }
}
