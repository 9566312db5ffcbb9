//! What blind labelling closes. Every action of the browsing context is placed here in
//! one exhaustive match, so a new action cannot leak an outcome by being forgotten: the
//! compiler asks whether it shows, writes or computes verdicts, models or others' labels.

use crate::tui::keymap::Action;

/// Why blind mode refuses `a` while browsing, or None when it tells nothing.
pub(crate) fn refuses(a: Action) -> Option<&'static str> {
    match a {
        Action::Compare => Some(
            "blind: compare shows every run's verdict on this φ₀; it stays closed while labelling blind",
        ),
        Action::Chart
        | Action::ChartAllRuns
        | Action::ChartKinds
        | Action::PrevBucket
        | Action::NextBucket => Some("blind: the chart stays hidden while labelling blind"),
        Action::Matrix => Some(
            "blind: the matrix shows every run's verdict on each φ₀; it stays closed while labelling blind",
        ),
        Action::LabelCounts => Some("blind: other annotators' label counts stay hidden"),
        Action::RunSummary => Some("blind: the run summary (pass rates, models) stays hidden"),
        Action::Export => Some(
            "blind: an export writes verdicts, others' labels and pass rates; open the viewer without --blind to export",
        ),
        Action::Rescore => Some(
            "blind: rescoring shows the run and its pass rate; open the viewer without --blind to rescore",
        ),
        Action::SortMetric => {
            Some("blind: sorting by a closeness metric would tell; sort by run, size or label")
        }
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Top
        | Action::Bottom
        | Action::Open
        | Action::Back
        | Action::Search
        | Action::Filter
        | Action::ClearFilters
        | Action::ToggleRun
        | Action::ToggleOrder
        | Action::Sort
        | Action::SortReverse
        | Action::NextPane
        | Action::PrevPane
        | Action::NextTab
        | Action::PrevTab
        | Action::ToggleTree
        | Action::ToggleBy
        | Action::Warnings
        | Action::Label
        | Action::NextUnlabelled
        | Action::NewRun
        | Action::PauseRun
        | Action::CancelRun
        | Action::Adjudicate
        | Action::Rank
        | Action::Jump
        | Action::Copy
        | Action::Help
        | Action::Quit
        | Action::Confirm
        | Action::Cancel
        | Action::DeleteChar
        | Action::NextField
        | Action::PrevField
        | Action::Decrease
        | Action::Increase
        | Action::Toggle
        | Action::Reviewed
        | Action::AcceptSuggestion
        | Action::EditNote
        | Action::Undo
        | Action::ToggleReasoning
        | Action::SearchReasoning => None,
    }
}
