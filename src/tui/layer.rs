//! What lies over the browsing screen: each layer carries its own data, opening one
//! pushes it, closing pops it, and the top layer picks the keymap context.

use super::components::adjudicate::Adjudication;
use super::components::chart_pick::ChartPick;
use super::components::filter_edit::FilterEditor;
use super::components::overlay::Overlay;
use super::keymap::Context;
use super::live::Form;
use super::model::{CompareView, KindCounts, PickedBucket, RunSummary};

/// Declares [`Layer`] and [`Mode`] from one list, so `Mode` cannot drift from the
/// layers: each variant with its docs and data, and its data-less name for `Mode`
/// (plus `Normal`, no layer), with the exhaustive [`Layer::mode`] between them.
macro_rules! layers {
    ($( $(#[$doc:meta])* $name:ident $(($($data:ty),+))? ),+ $(,)?) => {
        /// One layer and its state.
        #[derive(Debug)]
        pub enum Layer {
            $( $(#[$doc])* $name $(($($data),+))? ),+
        }

        /// Which layer is on top, without its data (what tests and drawing ask);
        /// generated with [`Layer`], whose variants it names.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Mode {
            /// No layer: browsing.
            Normal,
            $( $(#[$doc])* $name ),+
        }

        impl Layer {
            /// The layer's name.
            pub fn mode(&self) -> Mode {
                match self {
                    $( Layer::$name { .. } => Mode::$name ),+
                }
            }
        }
    };
}

layers! {
    /// Every key and mode (scrolls).
    Help(Overlay),
    /// Loading warnings.
    Warnings(Overlay),
    /// The same φ₀ across runs.
    Compare(Box<CompareView>),
    /// One run at a glance (scrolls).
    RunSummary(Overlay, Option<Box<RunSummary>>),
    /// Label counts by category and bucket.
    LabelCounts(Overlay),
    /// The filter editor.
    Filter(FilterEditor),
    /// Picking a chart bucket, with what the pick shows.
    Chart(Box<ChartLayer>),
    /// Typing a search.
    Search,
    /// Hand-labelling the selected sample; the category rows scrolled past (when the
    /// panel cannot show them all).
    Label(usize),
    /// Typing a note for the selected sample (over the label panel).
    Note,
    /// The new-run form.
    NewRun(Box<Form>),
    /// `C` was pressed: the next key says whether to cancel the live run.
    ConfirmCancel,
    /// Ranking the answers to one φ₀ (blind until submitted).
    Rank(Box<super::model::rank::RankView>),
    /// Settling the selected sample's labels.
    Adjudicate(Box<Adjudication>),
    /// Typing a sample id to jump to (`:`); read in the note context's keys.
    Jump(super::components::text_field::TextField),
    /// The copy menu (`y`): a digit copies φ₀, ψ, φ₁, the JSON or the verify command.
    Copy,
    /// `S` was pressed: the next key says whether to rescore the run in place.
    ConfirmRescore(usize),
    /// φ₀ × runs, each cell a verdict (promptfoo's grid); rows follow the list.
    Matrix(Box<super::model::matrix::MatrixView>),
}

/// The chart picker and the counts of its highlighted run and bucket.
#[derive(Debug, Default)]
pub struct ChartLayer {
    /// The highlighted run and bucket.
    pub pick: ChartPick,
    /// The highlighted bucket's counts.
    pub picked: Option<PickedBucket>,
    /// Failing samples of the highlighted run by failure kind and bucket.
    pub kinds: (String, KindCounts),
}

impl Layer {
    /// The keymap context this layer reads keys in.
    pub fn context(&self) -> Context {
        match self {
            Layer::Search => Context::Search,
            Layer::Note | Layer::Jump(_) => Context::Note,
            Layer::NewRun(_) => Context::Form,
            Layer::Label(_) => Context::Label,
            Layer::Filter(_) => Context::Filter,
            Layer::Chart(_) => Context::Chart,
            Layer::Rank(_) => Context::Rank,
            Layer::Adjudicate(_) => Context::Adjudicate,
            Layer::Matrix(_) => Context::Matrix,
            Layer::Help(_)
            | Layer::Compare(_)
            | Layer::Warnings(_)
            | Layer::LabelCounts(_)
            | Layer::RunSummary(..)
            | Layer::ConfirmCancel
            | Layer::Copy
            | Layer::ConfirmRescore(_) => Context::Overlay,
        }
    }

    /// The scroll of an overlay that scrolls.
    pub fn overlay(&self) -> Option<&Overlay> {
        match self {
            Layer::Help(o)
            | Layer::Warnings(o)
            | Layer::LabelCounts(o)
            | Layer::RunSummary(o, _) => Some(o),
            Layer::Compare(_)
            | Layer::Filter(_)
            | Layer::Chart(_)
            | Layer::Search
            | Layer::Label(_)
            | Layer::Note
            | Layer::NewRun(_)
            | Layer::ConfirmCancel
            | Layer::Rank(_)
            | Layer::Adjudicate(_)
            | Layer::Jump(_)
            | Layer::Copy
            | Layer::ConfirmRescore(_)
            | Layer::Matrix(_) => None,
        }
    }
}
