//! One keymap, in contexts (normal, search, note, form, label, filter, chart, overlay),
//! drives key handling, the help overlay and every footer, so they cannot drift.
//! Keys are typed ([`Key`]); the config file names them like `j`, `ctrl-c`, `shift-tab`.

use super::keys::Key;
use std::collections::HashMap;

/// Things a key can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    AcceptSuggestion,
    /// Label mode: write a note.
    EditNote,
    /// Label mode: undo the last change.
    Undo,
    /// Chart: previous bucket.
    PrevBucket,
    /// Chart: next bucket.
    NextBucket,
    /// Chart: the highlighted bucket of every run.
    ChartAllRuns,
    /// Chart: failure kinds of the highlighted bucket.
    ChartKinds,
}

/// Where a key is read: each mode of the viewer has its own bindings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Context {
    /// Browsing the lists and the detail.
    Normal,
    /// Typing a search.
    Search,
    /// Typing a note in label mode.
    Note,
    /// The new-run form.
    Form,
    /// Label mode.
    Label,
    /// The filter editor.
    Filter,
    /// Picking a chart bucket.
    Chart,
    /// Help, compare, warnings, label counts and the run summary.
    Overlay,
}

impl Context {
    /// Every context, in the order help lists them.
    pub const ALL: [Context; 8] = [
        Context::Normal,
        Context::Overlay,
        Context::Search,
        Context::Filter,
        Context::Chart,
        Context::Label,
        Context::Note,
        Context::Form,
    ];

    /// The config-file table name (`[keys.label]`); normal bindings sit in `[keys]`.
    pub fn name(self) -> &'static str {
        match self {
            Context::Normal => "normal",
            Context::Search => "search",
            Context::Note => "note",
            Context::Form => "form",
            Context::Label => "label",
            Context::Filter => "filter",
            Context::Chart => "chart",
            Context::Overlay => "overlay",
        }
    }

    /// The heading help shows for it.
    pub fn title(self) -> &'static str {
        match self {
            Context::Normal => "browsing",
            Context::Search => "search (/): type to search φ₀ ψ φ₁, labels and notes",
            Context::Note => "note (m in label mode): type the note",
            Context::Form => "new-run form (R): type into the field",
            Context::Label => "label mode (a): each category's key toggles it (see the panel)",
            Context::Filter => "filter editor (f): digits type a bound",
            Context::Chart => "chart (v)",
            Context::Overlay => "help, compare, warnings, counts, run summary",
        }
    }

    /// Where a key not bound here is looked up next (text fields take every character).
    pub fn fallback(self) -> Option<Context> {
        match self {
            Context::Label | Context::Filter | Context::Overlay => Some(Context::Normal),
            _ => None,
        }
    }

    /// A footer hint for keys that are not bindings (typed text, taxonomy keys, digits).
    pub fn note(self) -> Option<(&'static str, &'static str)> {
        match self {
            Context::Search => Some(("type", "search")),
            Context::Note | Context::Form => Some(("type", "edit")),
            Context::Label => Some(("category keys", "toggle")),
            Context::Filter => Some(("0-9", "bound")),
            _ => None,
        }
    }

    /// Typed characters go into a text field rather than to bindings.
    pub fn takes_text(self) -> bool {
        matches!(self, Context::Search | Context::Note | Context::Form)
    }
}

/// A binding with its description.
#[derive(Clone, Debug)]
pub struct Binding {
    /// Where it applies.
    pub context: Context,
    /// The action.
    pub action: Action,
    /// Config-file name of the action.
    pub name: &'static str,
    /// Keys.
    pub keys: Vec<Key>,
    /// What it does.
    pub desc: &'static str,
    /// Shown in the footer, with this short label.
    pub footer: Option<&'static str>,
}

/// (context, action, config name, keys, description, footer label).
type DefaultBinding = (
    Context,
    Action,
    &'static str,
    &'static [&'static str],
    &'static str,
    Option<&'static str>,
);

const N: Context = Context::Normal;
const S: Context = Context::Search;
const T: Context = Context::Note;
const F: Context = Context::Form;
const L: Context = Context::Label;
const E: Context = Context::Filter;
const C: Context = Context::Chart;
const O: Context = Context::Overlay;

/// Keys shared by the contexts that move or scroll (each context binds its own copy,
/// so each can be rebound on its own).
const UP: &[&str] = &["k", "up"];
const DOWN: &[&str] = &["j", "down"];
const PAGE_UP: &[&str] = &["pageup", "ctrl-u"];
const PAGE_DOWN: &[&str] = &["pagedown", "ctrl-d"];
const TOP: &[&str] = &["g", "home"];
const BOTTOM: &[&str] = &["G", "end"];
const QUIT_ANYWHERE: &[&str] = &["q", "ctrl-c"];
const QUIT_TYPING: &[&str] = &["ctrl-c"];

const DEFAULTS: &[DefaultBinding] = &[
    (N, Action::Up, "up", UP, "move up", None),
    (N, Action::Down, "down", DOWN, "move down", Some("move")),
    (N, Action::PageUp, "page_up", PAGE_UP, "page up", None),
    (
        N,
        Action::PageDown,
        "page_down",
        PAGE_DOWN,
        "page down",
        None,
    ),
    (N, Action::Top, "top", TOP, "first", None),
    (N, Action::Bottom, "bottom", BOTTOM, "last", None),
    (
        N,
        Action::Open,
        "open",
        &["enter"],
        "open / apply",
        Some("open"),
    ),
    (N, Action::Back, "back", &["esc"], "back / close", None),
    (
        N,
        Action::Search,
        "search",
        &["/"],
        "fuzzy search φ₀ ψ φ₁",
        Some("search"),
    ),
    (
        N,
        Action::Filter,
        "filter",
        &["f"],
        "filters",
        Some("filter"),
    ),
    (
        N,
        Action::ClearFilters,
        "clear_filters",
        &["x"],
        "clear filters and search",
        None,
    ),
    (
        N,
        Action::ToggleRun,
        "toggle_run",
        &["space"],
        "show / hide the run under the cursor (run list)",
        None,
    ),
    (
        N,
        Action::ToggleOrder,
        "toggle_order",
        &["o"],
        "search results: best match first ↔ dataset order",
        None,
    ),
    (
        N,
        Action::Sort,
        "sort",
        &["s"],
        "sort by the next column (s again: next one)",
        None,
    ),
    (
        N,
        Action::SortReverse,
        "sort_reverse",
        &["r"],
        "reverse the sort",
        None,
    ),
    (
        N,
        Action::NextPane,
        "next_pane",
        &["tab"],
        "next pane",
        Some("pane"),
    ),
    (
        N,
        Action::PrevPane,
        "prev_pane",
        &["shift-tab"],
        "previous pane",
        None,
    ),
    (
        N,
        Action::NextTab,
        "next_tab",
        &["]", "l", "right"],
        "next detail tab",
        None,
    ),
    (
        N,
        Action::PrevTab,
        "prev_tab",
        &["[", "h", "left"],
        "previous detail tab",
        None,
    ),
    (
        N,
        Action::ToggleTree,
        "tree",
        &["t"],
        "formulas as trees",
        None,
    ),
    (
        N,
        Action::Compare,
        "compare",
        &["c"],
        "same φ₀ in other runs",
        Some("compare"),
    ),
    (N, Action::ToggleBy, "by", &["b"], "operators ↔ depth", None),
    (
        N,
        Action::Chart,
        "chart",
        &["v"],
        "pick a chart bucket",
        None,
    ),
    (
        N,
        Action::Warnings,
        "warnings",
        &["w"],
        "loading warnings",
        None,
    ),
    (
        N,
        Action::Label,
        "label",
        &["a"],
        "label why it failed (one key per category)",
        Some("label"),
    ),
    (
        N,
        Action::NextUnlabelled,
        "next_unlabelled",
        &["n"],
        "next unlabelled sample",
        None,
    ),
    (
        N,
        Action::NewRun,
        "new_run",
        &["R"],
        "start a run (form)",
        None,
    ),
    (
        N,
        Action::PauseRun,
        "pause_run",
        &["p"],
        "pause / resume the live run",
        None,
    ),
    (
        N,
        Action::CancelRun,
        "cancel_run",
        &["C"],
        "cancel the live run (resumable)",
        None,
    ),
    (
        N,
        Action::LabelCounts,
        "label_counts",
        &["L"],
        "label counts by category × operators",
        None,
    ),
    (
        N,
        Action::Export,
        "export",
        &["E"],
        "export the listed samples (JSONL, CSV) and the chart (CSV)",
        None,
    ),
    (
        N,
        Action::RunSummary,
        "run_summary",
        &["i"],
        "run summary: judge vs verifier, failure kinds, pass/fail vs other runs",
        None,
    ),
    (
        N,
        Action::Rescore,
        "rescore",
        &["S"],
        "rescore the selected run into RUN-rescored (no model calls)",
        None,
    ),
    (N, Action::Help, "help", &["?"], "help", Some("help")),
    (N, Action::Quit, "quit", QUIT_ANYWHERE, "quit", Some("quit")),
    (O, Action::Up, "up", UP, "scroll up", None),
    (O, Action::Down, "down", DOWN, "scroll down", Some("scroll")),
    (O, Action::PageUp, "page_up", PAGE_UP, "page up", None),
    (
        O,
        Action::PageDown,
        "page_down",
        PAGE_DOWN,
        "page down",
        None,
    ),
    (O, Action::Top, "top", TOP, "top", None),
    (O, Action::Bottom, "bottom", BOTTOM, "bottom", None),
    (
        O,
        Action::Back,
        "back",
        &["esc", "enter"],
        "close (so does the key that opened it)",
        Some("close"),
    ),
    (
        S,
        Action::Confirm,
        "confirm",
        &["enter"],
        "keep the search, back to the list",
        Some("keep"),
    ),
    (
        S,
        Action::Cancel,
        "cancel",
        &["esc"],
        "clear the search",
        Some("clear"),
    ),
    (
        S,
        Action::DeleteChar,
        "delete_char",
        &["backspace"],
        "delete a character",
        None,
    ),
    (
        S,
        Action::ToggleOrder,
        "toggle_order",
        &["ctrl-o"],
        "best match first ↔ dataset order",
        Some("order"),
    ),
    (S, Action::Quit, "quit", QUIT_TYPING, "quit", None),
    (
        E,
        Action::PrevField,
        "prev_field",
        &["k", "up", "shift-tab"],
        "previous field",
        None,
    ),
    (
        E,
        Action::NextField,
        "next_field",
        &["j", "down", "tab"],
        "next field",
        Some("field"),
    ),
    (
        E,
        Action::Decrease,
        "decrease",
        &["left", "h", "-"],
        "lower the bound / previous choice",
        None,
    ),
    (
        E,
        Action::Increase,
        "increase",
        &["right", "l", "+"],
        "raise the bound / next choice",
        Some("change"),
    ),
    (
        E,
        Action::Toggle,
        "toggle",
        &["space"],
        "toggle the verdict or category",
        Some("toggle"),
    ),
    (
        E,
        Action::Confirm,
        "confirm",
        &["enter"],
        "toggle a verdict field, else done",
        None,
    ),
    (
        E,
        Action::ClearFilters,
        "clear_filters",
        &["x"],
        "clear every filter",
        Some("clear"),
    ),
    (
        E,
        Action::Back,
        "back",
        &["esc", "f", "q"],
        "done",
        Some("done"),
    ),
    (
        C,
        Action::PrevBucket,
        "prev_bucket",
        &["left", "h", "["],
        "previous bucket",
        None,
    ),
    (
        C,
        Action::NextBucket,
        "next_bucket",
        &["right", "l", "]"],
        "next bucket",
        Some("bucket"),
    ),
    (C, Action::Up, "up", UP, "previous run", None),
    (C, Action::Down, "down", DOWN, "next run", Some("run")),
    (
        C,
        Action::Open,
        "open",
        &["enter"],
        "this run's samples in the bucket",
        Some("this run"),
    ),
    (
        C,
        Action::ChartAllRuns,
        "all_runs",
        &["A"],
        "every run's samples in the bucket",
        Some("every run"),
    ),
    (
        C,
        Action::ChartKinds,
        "kinds",
        &["K"],
        "failure kinds of the bucket",
        Some("kinds"),
    ),
    (C, Action::Back, "back", &["esc", "v"], "back", Some("back")),
    (C, Action::Quit, "quit", QUIT_ANYWHERE, "quit", None),
    (
        L,
        Action::Reviewed,
        "reviewed",
        &["0"],
        "reviewed, nothing wrong",
        Some("fine"),
    ),
    (
        L,
        Action::AcceptSuggestion,
        "accept",
        &["y"],
        "add the suggested category",
        Some("accept"),
    ),
    (
        L,
        Action::EditNote,
        "note",
        &["m"],
        "write a note",
        Some("note"),
    ),
    (
        L,
        Action::Undo,
        "undo",
        &["u"],
        "undo the last change",
        Some("undo"),
    ),
    (
        L,
        Action::NextUnlabelled,
        "next_unlabelled",
        &["n"],
        "next unlabelled sample",
        Some("next"),
    ),
    (L, Action::Up, "up", UP, "previous sample", None),
    (L, Action::Down, "down", DOWN, "next sample", None),
    (
        L,
        Action::Back,
        "back",
        &["esc"],
        "leave label mode",
        Some("done"),
    ),
    (L, Action::Quit, "quit", QUIT_ANYWHERE, "quit", None),
    (
        T,
        Action::Confirm,
        "confirm",
        &["enter"],
        "save the note",
        Some("save"),
    ),
    (
        T,
        Action::Cancel,
        "cancel",
        &["esc"],
        "drop the note",
        Some("cancel"),
    ),
    (
        T,
        Action::DeleteChar,
        "delete_char",
        &["backspace"],
        "delete a character",
        None,
    ),
    (T, Action::Quit, "quit", QUIT_TYPING, "quit", None),
    (
        F,
        Action::NextField,
        "next_field",
        &["tab", "down"],
        "next field",
        Some("field"),
    ),
    (
        F,
        Action::PrevField,
        "prev_field",
        &["shift-tab", "up"],
        "previous field",
        None,
    ),
    (
        F,
        Action::Confirm,
        "confirm",
        &["enter"],
        "start the run",
        Some("start"),
    ),
    (
        F,
        Action::Cancel,
        "cancel",
        &["esc"],
        "close the form",
        Some("close"),
    ),
    (
        F,
        Action::DeleteChar,
        "delete_char",
        &["backspace"],
        "delete a character",
        None,
    ),
    (F, Action::Quit, "quit", QUIT_TYPING, "quit", None),
];

/// The keymap.
#[derive(Clone, Debug)]
pub struct Keymap {
    /// Bindings in display order, every context.
    pub bindings: Vec<Binding>,
    index: HashMap<(Context, Key), Action>,
}

/// A key name in the defaults that does not parse is a bug caught by the tests; it is
/// skipped rather than stopping the viewer.
fn parse_keys(names: &[&str]) -> Vec<Key> {
    names.iter().filter_map(|n| n.parse().ok()).collect()
}

impl Default for Keymap {
    fn default() -> Self {
        let bindings = DEFAULTS
            .iter()
            .map(|(context, action, name, keys, desc, footer)| Binding {
                context: *context,
                action: *action,
                name,
                keys: parse_keys(keys),
                desc,
                footer: *footer,
            })
            .collect();
        Keymap::from_bindings(bindings)
    }
}

impl Keymap {
    fn from_bindings(bindings: Vec<Binding>) -> Keymap {
        let mut index = HashMap::new();
        for b in &bindings {
            for k in &b.keys {
                index.insert((b.context, *k), b.action);
            }
        }
        Keymap { bindings, index }
    }

    /// Applies `[keys]` overrides from the config file: `action = ["key", …]` for
    /// browsing, and `[keys.<context>]` tables (`search`, `note`, `form`, `label`,
    /// `filter`, `chart`, `overlay`) for the other modes.
    pub fn with_overrides(mut self, keys: Option<&toml::Table>) -> (Keymap, Vec<String>) {
        let mut warnings = Vec::new();
        if let Some(table) = keys {
            for (name, v) in table {
                if let toml::Value::Table(sub) = v {
                    match Context::ALL.iter().find(|c| c.name() == name) {
                        Some(ctx) if *ctx != Context::Normal => {
                            for (action, v) in sub {
                                self.override_one(*ctx, action, v, &mut warnings);
                            }
                        }
                        _ => warnings.push(format!(
                            "config [keys.{name}]: unknown mode (known: search, note, form, label, filter, chart, overlay)"
                        )),
                    }
                } else {
                    self.override_one(Context::Normal, name, v, &mut warnings);
                }
            }
        }
        // However the overrides read, the viewer can always be left.
        for ctx in Context::ALL {
            if ctx.fallback().is_some() && ctx != Context::Normal {
                continue;
            }
            let has_quit = self
                .bindings
                .iter()
                .any(|b| b.context == ctx && b.action == Action::Quit && !b.keys.is_empty());
            if !has_quit {
                let ctrl_c = Key::ctrl_c();
                for b in self.bindings.iter_mut().filter(|b| b.context == ctx) {
                    if b.action == Action::Quit {
                        b.keys = vec![ctrl_c];
                    } else {
                        b.keys.retain(|k| *k != ctrl_c);
                    }
                }
                warnings.push(format!(
                    "config [keys]: quit had no key left in {} mode; ctrl-c quits",
                    ctx.name()
                ));
            }
        }
        self = Keymap::from_bindings(self.bindings);
        (self, warnings)
    }

    fn override_one(
        &mut self,
        ctx: Context,
        name: &str,
        v: &toml::Value,
        warnings: &mut Vec<String>,
    ) {
        let place = if ctx == Context::Normal {
            "[keys]".to_string()
        } else {
            format!("[keys.{}]", ctx.name())
        };
        let Some(b) = self
            .bindings
            .iter_mut()
            .find(|b| b.context == ctx && b.name == name)
        else {
            let names: Vec<&str> = DEFAULTS
                .iter()
                .filter(|d| d.0 == ctx)
                .map(|d| d.2)
                .collect();
            warnings.push(format!(
                "config {place}: unknown action '{name}' (known: {})",
                names.join(", ")
            ));
            return;
        };
        let names: Option<Vec<String>> = match v {
            toml::Value::String(s) => Some(vec![s.clone()]),
            toml::Value::Array(a) => a.iter().map(|x| x.as_str().map(str::to_string)).collect(),
            _ => None,
        };
        let keys: Option<Vec<Key>> = names.map(|n| {
            n.iter()
                .filter_map(|key| match key.parse::<Key>() {
                    Ok(k) => Some(k),
                    Err(e) => {
                        warnings.push(format!("config {place}: {name}: {e}; ignored"));
                        None
                    }
                })
                .collect()
        });
        // Ctrl-C quits in every mode (the README promises it): no action may take it,
        // and a rebound quit keeps it.
        let keys = keys.map(|mut k| {
            if b.action == Action::Quit {
                if !k.contains(&Key::ctrl_c()) {
                    k.push(Key::ctrl_c());
                }
            } else if k.contains(&Key::ctrl_c()) {
                k.retain(|x| *x != Key::ctrl_c());
                warnings.push(format!(
                    "config {place}: {name}: ctrl-c always quits; that key is ignored"
                ));
            }
            k
        });
        match keys {
            Some(k) if !k.is_empty() => {
                b.keys.clone_from(&k);
                // An override takes its keys away from every other action of its mode.
                let action = b.action;
                for other in self
                    .bindings
                    .iter_mut()
                    .filter(|o| o.context == ctx && o.action != action)
                {
                    let before = other.keys.len();
                    other.keys.retain(|x| !k.contains(x));
                    if other.keys.len() != before {
                        warnings.push(format!(
                            "config {place}: {name} now uses a key that {} had",
                            other.name
                        ));
                    }
                }
            }
            _ => warnings.push(format!(
                "config {place}: {name}: expected a key or a list of keys"
            )),
        }
    }

    /// The action bound to a key in exactly this context.
    pub fn action(&self, ctx: Context, key: Key) -> Option<Action> {
        self.index.get(&(ctx, key)).copied()
    }

    /// The bindings of one context.
    pub fn of(&self, ctx: Context) -> impl Iterator<Item = &Binding> {
        self.bindings.iter().filter(move |b| b.context == ctx)
    }

    /// The keys of one context, as their names.
    pub fn key_names(&self, ctx: Context) -> Vec<String> {
        self.of(ctx)
            .flat_map(|b| b.keys.iter().map(ToString::to_string))
            .collect()
    }

    /// The first key of an action in a context, as users type it (for status messages).
    pub fn first_key(&self, ctx: Context, action: Action) -> Option<String> {
        self.of(ctx)
            .find(|b| b.action == action)
            .and_then(|b| b.keys.first())
            .map(ToString::to_string)
    }

    /// Footer hints of a context: (first key, short label), after its note if any.
    pub fn hints(&self, ctx: Context) -> Vec<(String, &'static str)> {
        ctx.note()
            .map(|(k, d)| (k.to_string(), d))
            .into_iter()
            .chain(
                self.of(ctx)
                    .filter_map(|b| Some((b.keys.first()?.short(), b.footer?))),
            )
            .collect()
    }

    /// A binding's keys as help shows them (`j, down`).
    pub fn keys_text(b: &Binding) -> String {
        b.keys
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(name: &str) -> Key {
        name.parse().unwrap()
    }

    #[test]
    fn defaults_parse_and_do_not_collide_within_a_context() {
        let m = Keymap::default();
        for (ctx, _, name, keys, _, _) in DEFAULTS {
            for key in *keys {
                assert!(key.parse::<Key>().is_ok(), "{}.{name}: {key}", ctx.name());
            }
        }
        for ctx in Context::ALL {
            let mut seen = std::collections::HashSet::new();
            for b in m.of(ctx) {
                for key in &b.keys {
                    assert!(seen.insert(*key), "{}: {key} bound twice", ctx.name());
                }
            }
        }
    }

    #[test]
    fn defaults_and_overrides() {
        let m = Keymap::default();
        assert_eq!(m.action(Context::Normal, k("j")), Some(Action::Down));
        assert_eq!(m.action(Context::Normal, k("ctrl-c")), Some(Action::Quit));
        let via_fallback = |ctx: Context, key| ctx.fallback().and_then(|f| m.action(f, key));
        assert_eq!(
            via_fallback(Context::Label, k("tab")),
            Some(Action::NextPane)
        );
        assert_eq!(
            via_fallback(Context::Search, k("tab")),
            None,
            "text fields do not fall back"
        );
        let table: toml::Table = "quit = [\"Q\"]\ndown = \"n\"\nnope = \"z\"\n[keys_typo]\n[label]\nundo = \"U\"\n[note]\ncancel = \"ctrl-c\"\n"
            .parse()
            .unwrap();
        let (m, w) = m.with_overrides(Some(&table));
        assert_eq!(m.action(Context::Normal, k("Q")), Some(Action::Quit));
        assert_eq!(m.action(Context::Normal, k("q")), None);
        assert_eq!(
            m.action(Context::Normal, k("n")),
            Some(Action::Down),
            "the override wins"
        );
        assert_eq!(m.action(Context::Label, k("U")), Some(Action::Undo));
        assert_eq!(m.action(Context::Label, k("u")), None);
        assert_eq!(
            m.action(Context::Note, k("ctrl-c")),
            Some(Action::Quit),
            "quit always has a key"
        );
        assert!(w.iter().any(|x| x.contains("next_unlabelled")), "{w:?}");
        assert!(w.iter().any(|x| x.contains("'nope'")), "{w:?}");
        assert!(
            w.iter()
                .any(|x| x.contains("[keys.keys_typo]: unknown mode")),
            "{w:?}"
        );
        assert!(
            w.iter()
                .any(|x| x.contains("[keys.note]: cancel: ctrl-c always quits")),
            "{w:?}"
        );
        assert!(
            m.hints(Context::Normal)
                .iter()
                .any(|(key, d)| key == "Q" && *d == "quit")
        );
        assert!(
            m.hints(Context::Label)
                .iter()
                .any(|(key, d)| key == "U" && *d == "undo")
        );
    }
}
