//! One keymap drives key handling, the help overlay and the footer hints.
//! Keys are names like `j`, `down`, `enter`, `ctrl-c`, `shift-tab`, `?`.

use std::collections::HashMap;

/// Things a key can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Move up.
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
    /// Back out: close a popup, clear the search, leave a pane.
    Back,
    /// Fuzzy search.
    Search,
    /// Filter editor.
    Filter,
    /// Clear all filters and the search.
    ClearFilters,
    /// Next pane.
    NextPane,
    /// Previous pane.
    PrevPane,
    /// Next detail tab.
    NextTab,
    /// Previous detail tab.
    PrevTab,
    /// Formulas as indented trees.
    ToggleTree,
    /// Same φ₀ across runs.
    Compare,
    /// Operators ↔ depth for chart and filters.
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
    /// Rescore the selected run's stored replies into a new run (no model calls).
    Rescore,
    /// Help overlay.
    Help,
    /// Quit.
    Quit,
}

/// A binding with its description.
#[derive(Clone, Debug)]
pub struct Binding {
    /// The action.
    pub action: Action,
    /// Config-file name of the action.
    pub name: &'static str,
    /// Keys.
    pub keys: Vec<String>,
    /// What it does.
    pub desc: &'static str,
    /// Shown in the footer, with this short label.
    pub footer: Option<&'static str>,
}

/// (action, config name, keys, description, footer label).
type DefaultBinding = (
    Action,
    &'static str,
    &'static [&'static str],
    &'static str,
    Option<&'static str>,
);

const DEFAULTS: [DefaultBinding; 31] = [
    (Action::Up, "up", &["k", "up"], "move up", None),
    (
        Action::Down,
        "down",
        &["j", "down"],
        "move down",
        Some("move"),
    ),
    (
        Action::PageUp,
        "page_up",
        &["pageup", "ctrl-u"],
        "page up",
        None,
    ),
    (
        Action::PageDown,
        "page_down",
        &["pagedown", "ctrl-d"],
        "page down",
        None,
    ),
    (Action::Top, "top", &["g", "home"], "first", None),
    (Action::Bottom, "bottom", &["G", "end"], "last", None),
    (
        Action::Open,
        "open",
        &["enter"],
        "open / apply",
        Some("open"),
    ),
    (Action::Back, "back", &["esc"], "back / close", None),
    (
        Action::Search,
        "search",
        &["/"],
        "fuzzy search φ₀ ψ φ₁",
        Some("search"),
    ),
    (Action::Filter, "filter", &["f"], "filters", Some("filter")),
    (
        Action::ClearFilters,
        "clear_filters",
        &["x"],
        "clear filters and search",
        None,
    ),
    (
        Action::NextPane,
        "next_pane",
        &["tab"],
        "next pane",
        Some("pane"),
    ),
    (
        Action::PrevPane,
        "prev_pane",
        &["shift-tab"],
        "previous pane",
        None,
    ),
    (
        Action::NextTab,
        "next_tab",
        &["]", "l", "right"],
        "next detail tab",
        None,
    ),
    (
        Action::PrevTab,
        "prev_tab",
        &["[", "h", "left"],
        "previous detail tab",
        None,
    ),
    (
        Action::ToggleTree,
        "tree",
        &["t"],
        "formulas as trees",
        None,
    ),
    (
        Action::Compare,
        "compare",
        &["c"],
        "same φ₀ in other runs",
        Some("compare"),
    ),
    (Action::ToggleBy, "by", &["b"], "operators ↔ depth", None),
    (Action::Chart, "chart", &["v"], "pick a chart bucket", None),
    (
        Action::Warnings,
        "warnings",
        &["w"],
        "loading warnings",
        None,
    ),
    (
        Action::Label,
        "label",
        &["a"],
        "label why it failed (one key per category)",
        Some("label"),
    ),
    (
        Action::NextUnlabelled,
        "next_unlabelled",
        &["n"],
        "next unlabelled sample",
        None,
    ),
    (
        Action::NewRun,
        "new_run",
        &["R"],
        "start a run (form)",
        None,
    ),
    (
        Action::PauseRun,
        "pause_run",
        &["p"],
        "pause / resume the live run",
        None,
    ),
    (
        Action::CancelRun,
        "cancel_run",
        &["C"],
        "cancel the live run (resumable)",
        None,
    ),
    (
        Action::LabelCounts,
        "label_counts",
        &["L"],
        "label counts by category × operators",
        None,
    ),
    (
        Action::Export,
        "export",
        &["E"],
        "export the listed samples (JSONL, CSV) and the chart (CSV)",
        None,
    ),
    (
        Action::RunSummary,
        "run_summary",
        &["i"],
        "run summary: judge vs verifier, failure kinds, pass/fail vs other runs",
        None,
    ),
    (
        Action::Rescore,
        "rescore",
        &["S"],
        "rescore the selected run into RUN-rescored (no model calls)",
        None,
    ),
    (Action::Help, "help", &["?"], "help", Some("help")),
    (Action::Quit, "quit", &["q", "ctrl-c"], "quit", Some("quit")),
];

/// The keymap.
#[derive(Clone, Debug)]
pub struct Keymap {
    /// Bindings in display order.
    pub bindings: Vec<Binding>,
    index: HashMap<String, Action>,
}

impl Default for Keymap {
    fn default() -> Self {
        let bindings = DEFAULTS
            .iter()
            .map(|(action, name, keys, desc, footer)| Binding {
                action: *action,
                name,
                keys: keys.iter().map(std::string::ToString::to_string).collect(),
                desc,
                footer: *footer,
            })
            .collect();
        Keymap::from_bindings(bindings)
    }
}

/// Whether `name` is a key the viewer can receive: one character, a named key
/// (`enter`, `esc`, `tab`, `shift-tab`, `backspace`, arrows, `pageup`, `pagedown`,
/// `home`, `end`, `space`, `f1`–`f12`), optionally after `ctrl-`.
pub fn is_key_name(name: &str) -> bool {
    let base = name.strip_prefix("ctrl-").unwrap_or(name);
    let named = [
        "enter",
        "esc",
        "tab",
        "shift-tab",
        "backspace",
        "up",
        "down",
        "left",
        "right",
        "pageup",
        "pagedown",
        "home",
        "end",
        "space",
    ];
    base.chars().count() == 1
        || named.contains(&base)
        || base
            .strip_prefix('f')
            .and_then(|n| n.parse::<u8>().ok())
            .is_some_and(|n| (1..=12).contains(&n))
}

impl Keymap {
    fn from_bindings(bindings: Vec<Binding>) -> Keymap {
        let mut index = HashMap::new();
        for b in &bindings {
            for k in &b.keys {
                index.insert(k.clone(), b.action);
            }
        }
        Keymap { bindings, index }
    }

    /// Applies `[keys]` overrides from the config file: `action = ["key", …]`.
    pub fn with_overrides(mut self, keys: Option<&toml::Table>) -> (Keymap, Vec<String>) {
        let mut warnings = Vec::new();
        if let Some(table) = keys {
            for (name, v) in table {
                let Some(b) = self.bindings.iter_mut().find(|b| b.name == name) else {
                    let names: Vec<&str> = DEFAULTS.iter().map(|d| d.1).collect();
                    warnings.push(format!(
                        "config [keys]: unknown action '{name}' (known: {})",
                        names.join(", ")
                    ));
                    continue;
                };
                let keys: Option<Vec<String>> = match v {
                    toml::Value::String(s) => Some(vec![s.clone()]),
                    toml::Value::Array(a) => {
                        a.iter().map(|x| x.as_str().map(str::to_string)).collect()
                    }
                    _ => None,
                };
                let keys = keys.map(|k| {
                    k.into_iter()
                        .filter(|key| {
                            let ok = is_key_name(key);
                            if !ok {
                                warnings.push(format!(
                                    "config [keys]: {name}: '{key}' is not a key name (e.g. q, ctrl-c, enter, shift-tab, f2); ignored"
                                ));
                            }
                            ok
                        })
                        .collect::<Vec<_>>()
                });
                match keys {
                    Some(k) if !k.is_empty() => {
                        b.keys = k.clone();
                        // An override takes its keys away from every other action.
                        let action = b.action;
                        for other in self.bindings.iter_mut().filter(|o| o.action != action) {
                            let before = other.keys.len();
                            other.keys.retain(|x| !k.contains(x));
                            if other.keys.len() != before {
                                warnings.push(format!(
                                    "config [keys]: {name} now uses a key that {} had",
                                    other.name
                                ));
                            }
                        }
                    }
                    _ => warnings.push(format!(
                        "config [keys]: {name}: expected a key or a list of keys"
                    )),
                }
            }
        }
        // However the overrides read, the viewer can always be left.
        let quit_keys: Vec<String> = self
            .bindings
            .iter()
            .find(|b| b.action == Action::Quit)
            .map(|b| b.keys.clone())
            .unwrap_or_default();
        if quit_keys.is_empty() {
            for b in &mut self.bindings {
                if b.action == Action::Quit {
                    b.keys = vec!["ctrl-c".into()];
                } else {
                    b.keys.retain(|k| k != "ctrl-c");
                }
            }
            warnings.push("config [keys]: quit had no key left; ctrl-c quits".into());
        }
        self = Keymap::from_bindings(self.bindings);
        (self, warnings)
    }

    /// The action bound to a key name.
    pub fn action(&self, key: &str) -> Option<Action> {
        self.index.get(key).copied()
    }

    /// Footer hints: (first key, short label).
    pub fn hints(&self) -> Vec<(String, &'static str)> {
        self.bindings
            .iter()
            .filter_map(|b| Some((b.keys.first()?.clone(), b.footer?)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        let k = Keymap::default();
        assert_eq!(k.action("j"), Some(Action::Down));
        assert_eq!(k.action("ctrl-c"), Some(Action::Quit));
        let table: toml::Table = "quit = [\"Q\"]\ndown = \"n\"\nnope = \"z\""
            .parse()
            .unwrap();
        let (k, w) = k.with_overrides(Some(&table));
        assert_eq!(k.action("Q"), Some(Action::Quit));
        assert_eq!(k.action("q"), None);
        assert_eq!(
            k.action("n"),
            Some(Action::Down),
            "the override wins over next_unlabelled"
        );
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w.iter().any(|x| x.contains("next_unlabelled")));
        assert!(k.hints().iter().any(|(key, d)| key == "Q" && *d == "quit"));
    }
}
