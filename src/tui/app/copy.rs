//! `y`: copy φ₀, ψ, φ₁, the sample as JSON, or its `verify --explain` command to the
//! clipboard through the terminal (OSC 52). The bytes wait in [`App::clipboard`]
//! until the draw loop writes them to the terminal.

use super::App;
use crate::tui::clipboard::{osc52, verify_command};
use crate::tui::keys::Key;
use crate::tui::layer::Layer;

/// What the copy menu offers, by its digit.
pub const CHOICES: [(char, &str); 5] = [
    ('1', "φ₀"),
    ('2', "ψ"),
    ('3', "φ₁"),
    ('4', "the sample as JSON"),
    ('5', "the verify --explain command"),
];

impl App {
    /// Opens the copy menu on the selected sample.
    pub(super) fn open_copy(&mut self) {
        if self.copy_texts().is_none() {
            self.status = "no sample to copy".into();
            return;
        }
        self.push(Layer::Copy);
    }

    /// The texts the menu copies, by choice: φ₀, ψ, φ₁, JSON, verify command (None
    /// when there is nothing, or while blind hides the outcome).
    pub fn copy_texts(&self) -> Option<[Option<String>; 5]> {
        let d = self.panes.detail.as_ref()?;
        if let Some(b) = &d.blind {
            // Blind: the projection's texts (the reply in place of φ₁, whose parse would
            // tell); the JSON and the verify command hold the outcome.
            return Some([
                Some(b.phi0.clone()),
                b.psi.clone(),
                b.reply.clone(),
                None,
                None,
            ]);
        }
        let rec = d.record.as_ref().ok()?;
        let round = rec.rounds.first();
        let psi = round.and_then(|r| r.psi.clone());
        let phi1 = round.and_then(|r| r.phi1.clone());
        // Blind: the record holds the verdict, judge and closeness: not before labelling.
        let hidden = self.model.hidden(d.key);
        let json = (!hidden).then(|| serde_json::to_string(rec).ok()).flatten();
        let cmd = phi1
            .as_deref()
            .map(|p| verify_command(&rec.phi0, p, rec.syntax));
        Some([Some(rec.phi0.clone()), psi, phi1, json, cmd])
    }

    /// A digit in the copy menu: copies that choice and closes the menu.
    pub(super) fn copy_digit(&mut self, key: Key) -> bool {
        let Some(c) = key.typed() else {
            return false;
        };
        let Some(k) = CHOICES.iter().position(|(d, _)| *d == c) else {
            return false;
        };
        let what = CHOICES[k].1;
        let text = self.copy_texts().and_then(|t| t[k].clone());
        let blind = self
            .panes
            .detail
            .as_ref()
            .is_some_and(|d| d.blind.is_some());
        let what = if blind && k == 2 { "the reply" } else { what };
        self.pop();
        match text {
            None if k == 3 && blind => {
                self.status = "blind: the sample's JSON holds its verdict; label it first".into();
            }
            None if k == 4 && blind => {
                self.status =
                    "blind: the verify command needs φ₁'s parse, which would tell; label it first"
                        .into();
            }
            None => self.status = format!("this sample has no {what}"),
            Some(t) => match osc52(&t) {
                Ok(seq) => {
                    self.clipboard.extend_from_slice(&seq);
                    self.status = format!(
                        "copied {what} ({} bytes) through the terminal (OSC 52; a terminal without it ignores this)",
                        t.len()
                    );
                }
                Err(e) => self.status = format!("{what}: {e}"),
            },
        }
        true
    }
}
