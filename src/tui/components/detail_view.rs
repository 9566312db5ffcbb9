//! The detail pane's view state: which tab, formulas as trees or lines, and the scroll
//! (bounded by how far the last frame's wrapped text reaches).

use super::super::keymap::Action;
use std::cell::Cell;

/// Detail tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    /// φ₀, ψ, φ₁, verdict.
    Overview,
    /// Structural diff.
    Diff,
    /// Countermodel tables and evaluated subformulas.
    Countermodel,
    /// The raw model exchange.
    Raw,
}

impl Tab {
    /// All tabs in order.
    pub const ALL: [Tab; 4] = [Tab::Overview, Tab::Diff, Tab::Countermodel, Tab::Raw];
    /// Title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Overview => "Overview",
            Tab::Diff => "Diff",
            Tab::Countermodel => "Countermodel",
            Tab::Raw => "Raw",
        }
    }
}

/// The detail pane's tab, tree toggle and scroll.
#[derive(Debug)]
pub struct DetailView {
    /// The tab shown.
    pub tab: Tab,
    /// Formulas drawn as indented trees.
    pub tree: bool,
    /// The Raw tab shows each call's reasoning (else one fold line per call).
    pub reasoning: bool,
    /// Rows scrolled: below the top, or above the last screenful when `from_end`.
    pub scroll: usize,
    /// The scroll counts from the end (`G`): the end of a long text is shown without
    /// wrapping what lies before it.
    pub from_end: bool,
    /// The furthest it can scroll, as the last frame wrapped the text.
    pub max_scroll: Cell<usize>,
}

impl Default for DetailView {
    fn default() -> Self {
        DetailView {
            tab: Tab::Overview,
            tree: false,
            reasoning: false,
            scroll: 0,
            from_end: false,
            max_scroll: Cell::new(usize::MAX),
        }
    }
}

impl DetailView {
    /// A new sample: back to the top (its length is not known until drawn).
    pub(crate) fn reset_scroll(&mut self) {
        self.scroll = 0;
        self.from_end = false;
        self.max_scroll.set(usize::MAX);
    }

    /// Scrolls by `delta` rows within what the last frame showed.
    pub(crate) fn scroll_by(&mut self, delta: isize) {
        let delta = if self.from_end { -delta } else { delta };
        self.scroll = self
            .scroll
            .saturating_add_signed(delta)
            .min(self.max_scroll.get());
    }

    /// To the top (`g`).
    pub(crate) fn go_top(&mut self) {
        self.scroll = 0;
        self.from_end = false;
    }

    /// To the last screenful (`G`), counted from there: nothing before it is measured.
    pub(crate) fn go_end(&mut self) {
        self.scroll = 0;
        self.from_end = true;
    }

    /// Handles the tab and tree actions; returns whether it took the action.
    pub fn handle(&mut self, a: Action) -> bool {
        match a {
            Action::NextTab | Action::PrevTab => {
                let n = Tab::ALL.len();
                let i = Tab::ALL.iter().position(|t| *t == self.tab).unwrap_or(0);
                let d = if a == Action::NextTab { 1 } else { n - 1 };
                self.tab = Tab::ALL[(i + d) % n];
                // Each tab starts at its top: an offset from another tab means nothing,
                // nor does its length (known again once drawn).
                self.reset_scroll();
                true
            }
            Action::ToggleTree => {
                self.tree = !self.tree;
                true
            }
            Action::ToggleReasoning => {
                self.reasoning = !self.reasoning;
                // Unfolded, the tab is longer than the last frame measured.
                self.max_scroll.set(usize::MAX);
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_cycle_and_reset_the_scroll_which_stays_in_bounds() {
        let mut d = DetailView::default();
        d.max_scroll.set(5);
        d.scroll_by(100);
        assert_eq!(d.scroll, 5);
        assert!(d.handle(Action::PrevTab));
        assert_eq!((d.tab, d.scroll), (Tab::Raw, 0));
        d.handle(Action::NextTab);
        assert_eq!(d.tab, Tab::Overview);
        d.scroll_by(-3);
        assert_eq!(d.scroll, 0);
        assert!(d.handle(Action::ToggleTree) && d.tree);
        assert!(!d.handle(Action::Up));
        d.scroll = 4;
        d.reset_scroll();
        assert_eq!((d.scroll, d.max_scroll.get()), (0, usize::MAX));
    }

    #[test]
    fn from_the_end_keys_scroll_the_same_way_and_stay_in_bounds() {
        let mut d = DetailView::default();
        d.max_scroll.set(10);
        d.go_end();
        d.scroll_by(-3);
        assert_eq!((d.from_end, d.scroll), (true, 3));
        d.scroll_by(1);
        assert_eq!(d.scroll, 2);
        d.scroll_by(-100);
        assert_eq!(d.scroll, 10);
        d.go_top();
        assert_eq!((d.from_end, d.scroll), (false, 0));
        d.go_end();
        d.reset_scroll();
        assert_eq!((d.from_end, d.scroll), (false, 0));
    }
}
