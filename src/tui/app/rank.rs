//! Keys of the rank view: digits set the highlighted answer's rank, the field keys move
//! the highlight, confirm appends the ranking to `ranks.jsonl` and reveals verdicts and
//! metrics, cancel leaves.

use super::App;
use crate::tui::keymap::{Action, Context};
use crate::tui::keys::Key;
use crate::tui::layer::Layer;
use crate::tui::model::rank::RankView;

impl App {
    /// Opens the rank view on the selected sample's φ₀, or says why it cannot.
    pub(super) fn open_rank(&mut self) {
        match self.model.rank_view() {
            Ok(v) => {
                self.status = if v.left_out > 0 {
                    format!(
                        "{} more answers to this φ₀ are left out: a ranking holds at most {}",
                        v.left_out,
                        crate::labels::ranks::MAX_CANDIDATES
                    )
                } else {
                    String::new()
                };
                self.push(Layer::Rank(Box::new(v)));
            }
            Err(why) => self.status = why,
        }
    }

    fn rank_view_mut(&mut self) -> Option<&mut RankView> {
        if let Some(Layer::Rank(v)) = self.layers.last_mut() {
            Some(v)
        } else {
            None
        }
    }

    /// A digit key: the highlighted answer's rank.
    pub(super) fn rank_digit(&mut self, key: Key) {
        let Some(d) = key.typed().and_then(|c| c.to_digit(10)) else {
            return;
        };
        let Some(v) = self.rank_view_mut() else {
            return;
        };
        let n = v.candidates.len();
        if v.submitted {
            self.status = "already submitted: ranking again (r) replaces it".into();
        } else if !v.set(d) {
            self.status = format!("ranks go from 1 (best) to {n}; equal ranks are ties");
        }
    }

    pub(super) fn rank_action(&mut self, a: Action) {
        let annotator = self.model.annotator.clone();
        let Some(v) = self.rank_view_mut() else {
            return;
        };
        match a {
            Action::PrevField => v.step(-1),
            Action::NextField => v.step(1),
            Action::DeleteChar => v.clear(),
            Action::Up => v.scroll = v.scroll.saturating_sub(1),
            Action::Down => v.scroll = v.scroll.saturating_add(1),
            Action::Cancel => self.pop(),
            Action::Confirm if v.submitted => self.pop(),
            Action::Confirm => {
                let n = v.candidates.len();
                let ranked = v.ranked();
                let dir = v.dir.clone();
                let Some(rec) = v.record(&annotator) else {
                    self.status = format!(
                        "{ranked} of {n} answers ranked: give each a rank first ({})",
                        self.keymap.hint(Context::Rank, Action::NextField)
                    );
                    return;
                };
                match crate::labels::ranks::append(&dir, rec) {
                    Ok(_) => {
                        v.submitted = true;
                        // The run folder's name, not the full path: the line stays short.
                        let folder = dir.file_name().map_or_else(
                            || dir.display().to_string(),
                            |n| n.to_string_lossy().into_owned(),
                        );
                        // Blind: the folder's name would name the model.
                        self.status = if v.reveal {
                            format!(
                                "ranking saved to {}/{}",
                                crate::base::sanitize::one_line(&folder),
                                crate::labels::ranks::RANKS
                            )
                        } else {
                            format!(
                                "ranking saved to the sample's run ({}); runs, verdicts and metrics stay hidden while blind",
                                crate::labels::ranks::RANKS
                            )
                        };
                    }
                    Err(e) => {
                        self.status = format!(
                            "ranking not saved: {}",
                            crate::base::sanitize::one_line(&e.to_string())
                        );
                    }
                }
            }
            _ => {}
        }
    }
}
