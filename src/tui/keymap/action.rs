//! The actions a key can do. Their config-file names come from the enum itself (serde,
//! `snake_case`, with a few shorter names users already write), so a name cannot drift
//! from the action it stands for.

use serde::Deserialize;
use serde::de::value::{Error as ValueError, StrDeserializer};
use serde::de::{self, Deserializer, IntoDeserializer, Visitor};

/// Things a key can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Move up (the list, a field, a run in the chart, an overlay's scroll).
    Up,
    /// Move down.
    Down,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
    /// First item.
    Top,
    /// Last item.
    Bottom,
    /// Open / focus the detail / apply.
    Open,
    /// Back out: close a popup or mode, clear the search, leave a pane.
    Back,
    /// Fuzzy search.
    Search,
    /// Filter editor.
    Filter,
    /// Clear all filters and the search.
    ClearFilters,
    /// Show or hide the run under the cursor in the run list.
    ToggleRun,
    /// Search results ranked by score or in dataset order.
    ToggleOrder,
    /// Sort the sample list by the next column (after the last, unsorted).
    Sort,
    /// Reverse the sample list's sort.
    SortReverse,
    /// Sort the sample list by the next closeness metric (after the last, unsorted).
    SortMetric,
    /// Next pane.
    NextPane,
    /// Previous pane.
    PrevPane,
    /// Next detail tab.
    NextTab,
    /// Previous detail tab.
    PrevTab,
    /// Formulas as indented trees.
    #[serde(rename = "tree")]
    ToggleTree,
    /// Same φ₀ across runs.
    Compare,
    /// Operators ↔ depth for chart and filters.
    #[serde(rename = "by")]
    ToggleBy,
    /// Focus the chart to pick a bucket.
    Chart,
    /// Warnings found while loading.
    Warnings,
    /// Label mode: one key per category.
    Label,
    /// Next unlabelled sample in the current filter.
    NextUnlabelled,
    /// Start a run (form).
    NewRun,
    /// Pause or resume the live run.
    PauseRun,
    /// Cancel the live run (resumable).
    CancelRun,
    /// Label counts by category and operator count.
    LabelCounts,
    /// Export the filtered samples and the chart to a new folder.
    Export,
    /// Summary of the selected sample's run: judge matrix, failure kinds, pass/fail against other runs.
    RunSummary,
    /// Settle the selected sample's disagreeing labels (adjudication layer).
    Adjudicate,
    /// Rescore the selected run's stored replies into a new run (no model calls).
    Rescore,
    /// Help overlay.
    Help,
    /// Quit.
    Quit,
    /// Text fields: keep what was typed (search), save (note), start (form).
    Confirm,
    /// Text fields: drop what was typed and leave.
    Cancel,
    /// Text fields: delete the last character.
    DeleteChar,
    /// Form and filter editor: next field.
    NextField,
    /// Form and filter editor: previous field.
    PrevField,
    /// Filter editor: lower the bound or step the choice back.
    Decrease,
    /// Filter editor: raise the bound or step the choice on.
    Increase,
    /// Filter editor: toggle the verdict or category under the cursor.
    Toggle,
    /// Label mode: reviewed, nothing wrong (an empty label).
    Reviewed,
    /// Label mode: add the suggested category.
    #[serde(rename = "accept")]
    AcceptSuggestion,
    /// Label mode: write a note.
    #[serde(rename = "note")]
    EditNote,
    /// Label mode: undo the last change.
    Undo,
    /// Chart: previous bucket.
    PrevBucket,
    /// Chart: next bucket.
    NextBucket,
    /// Chart: the highlighted bucket of every run.
    #[serde(rename = "all_runs")]
    ChartAllRuns,
    /// Chart: failure kinds of the highlighted bucket.
    #[serde(rename = "kinds")]
    ChartKinds,
    /// Rank the answers to the selected sample's φ₀ (two or more runs or repeats).
    Rank,
    /// Normal mode: jump to a sample by id (`:`).
    Jump,
    /// Raw tab: show or hide each call's reasoning under its answer.
    #[serde(rename = "reasoning")]
    ToggleReasoning,
    /// Search: include the calls' reasoning in what is searched, or not.
    SearchReasoning,
    /// Normal mode: copy φ₀, ψ, φ₁, the sample's JSON or its verify command (OSC 52).
    Copy,
    /// Normal mode: the matrix view, φ₀ × runs with each cell's verdict.
    Matrix,
}

impl Action {
    /// Every action's config-file name, in declaration order (serde's own list).
    pub(crate) fn names() -> &'static [&'static str] {
        let mut grab = VariantNames(&[]);
        // The derived impl hands its variant list to `deserialize_enum` and then fails
        // on purpose: the list is all that is wanted.
        let _ = Action::deserialize(&mut grab);
        grab.0
    }

    /// Every action, in declaration order.
    pub fn all() -> impl Iterator<Item = Action> {
        Action::names().iter().filter_map(|n| Action::from_name(n))
    }

    /// The action a config file names (`page_up`, `tree`), if any.
    pub(crate) fn from_name(name: &str) -> Option<Action> {
        let d: StrDeserializer<'_, ValueError> = name.into_deserializer();
        Action::deserialize(d).ok()
    }

    /// The name config files use for it.
    pub(crate) fn name(self) -> &'static str {
        Action::names()
            .iter()
            .find(|n| Action::from_name(n) == Some(self))
            .copied()
            // Unreachable: serde lists every variant it can produce.
            .unwrap_or("unknown")
    }
}

/// A deserializer that only records the variant names an enum asks for.
struct VariantNames(&'static [&'static str]);

impl<'de> Deserializer<'de> for &mut VariantNames {
    type Error = ValueError;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, ValueError> {
        Err(de::Error::custom("only enum variant names are read"))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, ValueError> {
        self.0 = variants;
        Err(de::Error::custom("only enum variant names are read"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}
