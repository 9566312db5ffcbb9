//! Bindings read from TOML. The embedded defaults (`defaults.toml`) and the user's
//! `[keys]` tables go through the same functions: mode names ([`Context::from_name`]),
//! action names ([`Action::from_name`]), key lists ([`parse_keys`]) and the rule that
//! ctrl-c belongs to quit alone.

use super::super::keys::Key;
use super::{Action, Binding, Context, Keymap};
use serde::Deserialize;
use std::collections::HashSet;
use std::sync::OnceLock;

/// The built-in bindings, one line each.
const DEFAULTS: &str = include_str!("defaults.toml");

/// One line of the defaults file: a binding with its help text.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    action: String,
    keys: toml::Value,
    help: String,
    footer: Option<String>,
}

/// A default binding with owned text; [`Binding`] borrows it for the whole run.
#[derive(Debug)]
pub(super) struct Parsed {
    context: Context,
    pub(super) action: Action,
    keys: Vec<Key>,
    help: String,
    footer: Option<String>,
}

/// The defaults, parsed once per process, and what was wrong with them.
fn builtin() -> &'static (Vec<Parsed>, Vec<String>) {
    static BUILTIN: OnceLock<(Vec<Parsed>, Vec<String>)> = OnceLock::new();
    BUILTIN.get_or_init(|| parse_defaults(DEFAULTS))
}

/// The built-in bindings in display order, and the problems found reading them (empty
/// unless the embedded file is broken; a unit test keeps it empty).
pub(super) fn defaults() -> (Vec<Binding>, Vec<String>) {
    let (parsed, errors) = builtin();
    (bindings(parsed), errors.clone())
}

/// Bindings that borrow their text from parsed defaults.
pub(super) fn bindings(parsed: &'static [Parsed]) -> Vec<Binding> {
    parsed
        .iter()
        .map(|p| Binding {
            context: p.context,
            action: p.action,
            name: p.action.name(),
            keys: p.keys.clone(),
            desc: &p.help,
            footer: p.footer.as_deref(),
        })
        .collect()
}

/// Parses a defaults file: one array per mode (`normal = [ { action, keys, help,
/// footer }, … ]`), modes in [`Context::ALL`] order. A bad line is reported and skipped.
pub(super) fn parse_defaults(text: &str) -> (Vec<Parsed>, Vec<String>) {
    let mut errors = Vec::new();
    let table: toml::Table = match text.parse() {
        Ok(t) => t,
        Err(e) => return (Vec::new(), vec![format!("built-in keymap: {e}")]),
    };
    for name in table.keys() {
        if Context::from_name(name).is_none() {
            errors.push(format!("built-in keymap: unknown mode '{name}'"));
        }
    }
    let mut out: Vec<Parsed> = Vec::new();
    for ctx in Context::ALL {
        let Some(value) = table.get(ctx.name()) else {
            errors.push(format!(
                "built-in keymap: no bindings for {} mode",
                ctx.name()
            ));
            continue;
        };
        let Some(lines) = value.as_array() else {
            errors.push(format!(
                "built-in keymap: {} should be an array of bindings",
                ctx.name()
            ));
            continue;
        };
        let place = format!("built-in keymap, {} mode", ctx.name());
        let mut seen = HashSet::new();
        for (n, v) in lines.iter().enumerate() {
            let line = match v.clone().try_into::<Line>() {
                Ok(l) => l,
                Err(e) => {
                    errors.push(format!("{place}, binding {}: {e}", n + 1));
                    continue;
                }
            };
            let Some(action) = Action::from_name(&line.action) else {
                errors.push(format!("{place}: unknown action '{}'", line.action));
                continue;
            };
            if out.iter().any(|p| p.context == ctx && p.action == action) {
                errors.push(format!("{place}: {} bound twice", line.action));
                continue;
            }
            let Some(keys) = parse_keys(&place, action, &line.keys, &mut errors) else {
                errors.push(format!(
                    "{place}: {}: expected a key or a list of keys",
                    line.action
                ));
                continue;
            };
            // A key already bound in this mode stays with its first action.
            let mut keys = keys;
            keys.retain(|k| {
                let fresh = seen.insert(*k);
                if !fresh {
                    errors.push(format!("{place}: {k} bound twice"));
                }
                fresh
            });
            out.push(Parsed {
                context: ctx,
                action,
                keys,
                help: line.help,
                footer: line.footer,
            });
        }
    }
    (out, errors)
}

/// One binding's keys as config files write them: a key name or a list of names. A bad
/// name is a warning and left out; ctrl-c is taken from any action but quit, and quit
/// always keeps it. `None` when the value is neither or no key is left.
pub(super) fn parse_keys(
    source: &str,
    action: Action,
    v: &toml::Value,
    warnings: &mut Vec<String>,
) -> Option<Vec<Key>> {
    let name = action.name();
    let names: Vec<&str> = match v {
        toml::Value::String(s) => vec![s.as_str()],
        toml::Value::Array(a) => a.iter().map(toml::Value::as_str).collect::<Option<_>>()?,
        _ => return None,
    };
    let mut keys: Vec<Key> = names
        .iter()
        .filter_map(|key| match key.parse::<Key>() {
            Ok(k) => Some(k),
            Err(e) => {
                warnings.push(format!("{source}: {name}: {e}; ignored"));
                None
            }
        })
        .collect();
    // Ctrl-C quits in every mode (the README promises it): no action may take it, and a
    // rebound quit keeps it.
    if action == Action::Quit {
        if !keys.contains(&Key::ctrl_c()) {
            keys.push(Key::ctrl_c());
        }
    } else if keys.contains(&Key::ctrl_c()) {
        keys.retain(|x| *x != Key::ctrl_c());
        warnings.push(format!(
            "{source}: {name}: ctrl-c always quits; that key is ignored"
        ));
    }
    (!keys.is_empty()).then_some(keys)
}

impl Keymap {
    /// Applies `[keys]` overrides from the config file: `action = ["key", …]` for
    /// browsing, and `[keys.<context>]` tables (`search`, `note`, `form`, `label`,
    /// `filter`, `chart`, `overlay`) for the other modes. Problems in the built-in
    /// bindings come first in the warnings.
    pub(crate) fn with_overrides(mut self, keys: Option<&toml::Table>) -> (Keymap, Vec<String>) {
        let mut warnings = std::mem::take(&mut self.errors);
        if let Some(table) = keys {
            for (name, v) in table {
                if let toml::Value::Table(sub) = v {
                    match Context::from_name(name) {
                        Some(ctx) if ctx != Context::Normal => {
                            for (action, v) in sub {
                                self.override_one(ctx, action, v, &mut warnings);
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
        self.ensure_quit("config [keys]", &mut warnings);
        (self, warnings)
    }

    /// However the bindings read, the viewer can always be left: every mode that reads
    /// no other mode's keys quits on ctrl-c at least.
    pub(super) fn ensure_quit(&mut self, source: &str, warnings: &mut Vec<String>) {
        for ctx in Context::ALL {
            if ctx.fallback().is_some() && ctx != Context::Normal {
                continue;
            }
            let has_quit = self
                .bindings
                .iter()
                .any(|b| b.context == ctx && b.action == Action::Quit && !b.keys.is_empty());
            if has_quit {
                continue;
            }
            let ctrl_c = Key::ctrl_c();
            for b in self.bindings.iter_mut().filter(|b| b.context == ctx) {
                b.keys.retain(|k| *k != ctrl_c);
            }
            match self
                .bindings
                .iter_mut()
                .find(|b| b.context == ctx && b.action == Action::Quit)
            {
                Some(b) => b.keys = vec![ctrl_c],
                None => self.bindings.push(Binding {
                    context: ctx,
                    action: Action::Quit,
                    name: Action::Quit.name(),
                    keys: vec![ctrl_c],
                    desc: "quit",
                    footer: None,
                }),
            }
            warnings.push(format!(
                "{source}: quit had no key left in {} mode; ctrl-c quits",
                ctx.name()
            ));
        }
        self.reindex();
    }

    fn override_one(
        &mut self,
        ctx: Context,
        name: &str,
        v: &toml::Value,
        warnings: &mut Vec<String>,
    ) {
        let place = ctx.place();
        let Some(action) = Action::from_name(name).filter(|a| self.of(ctx).any(|b| b.action == *a))
        else {
            let names: Vec<&str> = self.of(ctx).map(|b| b.name).collect();
            warnings.push(format!(
                "config {place}: unknown action '{name}' (known: {})",
                names.join(", ")
            ));
            return;
        };
        let Some(keys) = parse_keys(&format!("config {place}"), action, v, warnings) else {
            warnings.push(format!(
                "config {place}: {name}: expected a key or a list of keys"
            ));
            return;
        };
        for b in self.bindings.iter_mut().filter(|b| b.context == ctx) {
            if b.action == action {
                b.keys.clone_from(&keys);
                continue;
            }
            // An override takes its keys away from every other action of its mode.
            let before = b.keys.len();
            b.keys.retain(|x| !keys.contains(x));
            if b.keys.len() != before {
                warnings.push(format!(
                    "config {place}: {name} now uses a key that {} had",
                    b.name
                ));
            }
        }
    }
}
