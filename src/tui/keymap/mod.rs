//! One keymap, in contexts (normal, search, note, form, label, filter, chart, overlay),
//! drives key handling, the help overlay and every footer, so they cannot drift.
//! Keys are typed ([`Key`]); the config file names them like `j`, `ctrl-c`, `shift-tab`.
//! The defaults are data (`keymap/defaults.toml`, read like the user's `[keys]`), and
//! prose that names a key asks for it ([`Keymap::hint`], [`Keymap::hint_line`]).

mod action;
mod parse;
#[cfg(test)]
mod tests;

pub use action::Action;

use super::keys::Key;
use std::collections::HashMap;

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
    /// Ranking the answers to one φ₀.
    Rank,
    /// Settling a sample's labels (adjudication layer).
    Adjudicate,
    /// The matrix view (φ₀ × runs).
    Matrix,
}

impl Context {
    /// Every context, in the order help lists them.
    pub const ALL: [Context; 11] = [
        Context::Normal,
        Context::Overlay,
        Context::Search,
        Context::Filter,
        Context::Chart,
        Context::Label,
        Context::Note,
        Context::Form,
        Context::Rank,
        Context::Adjudicate,
        Context::Matrix,
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
            Context::Rank => "rank",
            Context::Adjudicate => "adjudicate",
            Context::Matrix => "matrix",
        }
    }

    /// The modes other than browsing, by their config-table names (`search, note, …`),
    /// as help lists them: generated, so a new mode is never left out.
    pub fn config_modes() -> String {
        Context::ALL
            .into_iter()
            .filter(|c| *c != Context::Normal)
            .map(Context::name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The mode a config table names (`label` for `[keys.label]`; `normal` is `[keys]`).
    pub(crate) fn from_name(name: &str) -> Option<Context> {
        Context::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Where its bindings sit in config.toml, as messages name it.
    pub(crate) fn place(self) -> String {
        if self == Context::Normal {
            "[keys]".to_string()
        } else {
            format!("[keys.{}]", self.name())
        }
    }

    /// The heading help shows for it, with the default keys ([`Keymap::title`] names the
    /// keys in force; a test keeps the two equal for the defaults).
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
            Context::Rank => "rank view (r): 1-9 set the highlighted answer's rank",
            Context::Adjudicate => "adjudicate (A): category keys tick too",
            Context::Matrix => {
                "matrix (M): φ₀ × runs; the list's filter, search and sort keys work"
            }
        }
    }

    /// The parts of its heading: the mode's name, the key that opens it (action, the
    /// context that reads it, words after the key) and what it does.
    fn heading(
        self,
    ) -> (
        &'static str,
        Option<(Context, Action, &'static str)>,
        &'static str,
    ) {
        let from = |a| Some((Context::Normal, a, ""));
        match self {
            Context::Normal => ("browsing", None, ""),
            Context::Search => (
                "search",
                from(Action::Search),
                ": type to search φ₀ ψ φ₁, labels and notes",
            ),
            Context::Note => (
                "note",
                Some((Context::Label, Action::EditNote, " in label mode")),
                ": type the note",
            ),
            Context::Form => (
                "new-run form",
                from(Action::NewRun),
                ": type into the field",
            ),
            Context::Label => (
                "label mode",
                from(Action::Label),
                ": each category's key toggles it (see the panel)",
            ),
            Context::Filter => (
                "filter editor",
                from(Action::Filter),
                ": digits type a bound",
            ),
            Context::Chart => ("chart", from(Action::Chart), ""),
            Context::Overlay => ("help, compare, warnings, counts, run summary", None, ""),
            Context::Rank => (
                "rank view",
                from(Action::Rank),
                ": 1-9 set the highlighted answer's rank",
            ),
            Context::Adjudicate => (
                "adjudicate",
                from(Action::Adjudicate),
                ": category keys tick too",
            ),
            Context::Matrix => (
                "matrix",
                from(Action::Matrix),
                ": φ₀ × runs; the list's filter, search and sort keys work",
            ),
        }
    }

    /// Where a key not bound here is looked up next (text fields take every character).
    pub fn fallback(self) -> Option<Context> {
        match self {
            Context::Label | Context::Filter | Context::Overlay | Context::Matrix => {
                Some(Context::Normal)
            }
            _ => None,
        }
    }

    /// A footer hint for keys that are not bindings (typed text, taxonomy keys, digits).
    pub fn note(self) -> Option<(&'static str, &'static str)> {
        match self {
            Context::Search => Some(("type", "search")),
            Context::Note | Context::Form => Some(("type", "edit")),
            Context::Label | Context::Adjudicate => Some(("category keys", "toggle")),
            Context::Filter => Some(("0-9", "bound")),
            Context::Rank => Some(("1-9", "rank")),
            _ => None,
        }
    }

    /// Typed characters go into a text field rather than to bindings.
    pub(crate) fn takes_text(self) -> bool {
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

/// What [`Keymap::hint`] says for an action no key does.
pub const UNBOUND: &str = "unbound";

/// The keymap.
#[derive(Clone, Debug)]
pub struct Keymap {
    /// Bindings in display order, every context.
    pub bindings: Vec<Binding>,
    index: HashMap<(Context, Key), Action>,
    /// Problems in the built-in bindings (none, unless the embedded file is broken),
    /// reported with the config's warnings.
    errors: Vec<String>,
}

impl Default for Keymap {
    /// The built-in bindings (`keymap/defaults.toml`). Should that file ever not parse,
    /// the bindings that do parse are kept, ctrl-c still quits, and the problems are
    /// reported as warnings by `Keymap::with_overrides`.
    fn default() -> Self {
        let (bindings, errors) = parse::defaults();
        Keymap::from_defaults(bindings, errors)
    }
}

impl Keymap {
    /// A keymap of default bindings; `errors` are the problems found reading them.
    fn from_defaults(bindings: Vec<Binding>, mut errors: Vec<String>) -> Keymap {
        let mut m = Keymap {
            bindings,
            index: HashMap::new(),
            errors: Vec::new(),
        };
        m.ensure_quit("built-in keymap", &mut errors);
        m.errors = errors;
        m
    }

    /// Rebuilds the key → action index after the bindings changed.
    fn reindex(&mut self) {
        self.index.clear();
        for b in &self.bindings {
            for k in &b.keys {
                self.index.insert((b.context, *k), b.action);
            }
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
    pub(crate) fn key_names(&self, ctx: Context) -> Vec<String> {
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

    /// Every key that does `action` in `ctx`, as key handling resolves it: the context's
    /// own bindings first, then its fallback's keys that the context does not take.
    pub(crate) fn keys_for(&self, ctx: Context, action: Action) -> Vec<Key> {
        let mut keys: Vec<Key> = self
            .of(ctx)
            .filter(|b| b.action == action)
            .flat_map(|b| b.keys.iter().copied())
            .collect();
        if let Some(f) = ctx.fallback() {
            keys.extend(
                self.of(f)
                    .filter(|b| b.action == action)
                    .flat_map(|b| b.keys.iter().copied())
                    .filter(|k| self.action(ctx, *k).is_none()),
            );
        }
        // Ctrl-C quits in every mode whatever the bindings say (the viewer checks it first).
        if action == Action::Quit && !keys.contains(&Key::ctrl_c()) {
            keys.push(Key::ctrl_c());
        }
        keys
    }

    /// The key that does `action` in `ctx`, as titles and statuses name it (arrows as
    /// ← → ↑ ↓), or [`UNBOUND`]: so no prose names a key the user may have rebound.
    pub fn hint(&self, ctx: Context, action: Action) -> String {
        self.keys_for(ctx, action)
            .first()
            .map_or_else(|| UNBOUND.to_string(), |k| k.short())
    }

    /// A line of hints such as `esc closes · enter applies`: each action's key (as
    /// [`Keymap::hint`]) before its words, joined by ` · `; unbound actions are left out.
    pub fn hint_line(&self, ctx: Context, parts: &[(Action, &str)]) -> String {
        parts
            .iter()
            .filter_map(|(a, words)| {
                let key = self.keys_for(ctx, *a).first()?.short();
                Some(if words.is_empty() {
                    key
                } else {
                    format!("{key} {words}")
                })
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// The heading help shows for a context, naming the key in force that opens it
    /// (`search (/): type to search …`).
    pub fn title(&self, ctx: Context) -> String {
        let (mode, opener, rest) = ctx.heading();
        match opener {
            Some((from, action, place)) => {
                format!("{mode} ({}{place}){rest}", self.hint(from, action))
            }
            None => format!("{mode}{rest}"),
        }
    }

    /// Footer hints of a context: (first key, short label), after its note if any.
    pub(crate) fn hints(&self, ctx: Context) -> Vec<(String, &'static str)> {
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
    pub(crate) fn keys_text(b: &Binding) -> String {
        b.keys
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
}
