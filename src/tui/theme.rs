//! Themes: `themes/*.toml` with flat semantic keys; built-ins are embedded, user
//! themes override parts, and a bad theme is a warning, never an exit.

use ratatui::style::Color;
use std::collections::HashMap;
use std::path::Path;

/// Built-in themes (name, file text).
pub(crate) const BUILTIN: [(&str, &str); 4] = [
    ("default", include_str!("../../themes/default.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
    ("colorblind", include_str!("../../themes/colorblind.toml")),
];

/// Semantic colours.
#[derive(Clone, Debug, PartialEq)]
pub struct Theme {
    /// Theme name.
    pub name: String,
    /// Text.
    pub fg: Color,
    /// Background.
    pub bg: Color,
    /// Secondary text.
    pub muted: Color,
    /// Pane borders.
    pub border: Color,
    /// Focused pane border.
    pub border_focus: Color,
    /// Pane titles.
    pub title: Color,
    /// Selected row text.
    pub selection_fg: Color,
    /// Selected row background.
    pub selection_bg: Color,
    /// Emphasis (search matches, chosen bucket).
    pub highlight: Color,
    /// Warnings.
    pub warning: Color,
    /// Verdict colours in `data::VERDICTS` order.
    pub verdict: [Color; 6],
    /// ∧ ∨ → ↔ ⊕ and regex operators.
    pub op_connective: Color,
    /// ¬.
    pub op_negation: Color,
    /// ∀ ∃.
    pub op_quantifier: Color,
    /// Propositions, predicates, symbols.
    pub atom: Color,
    /// Parentheses and punctuation.
    pub paren: Color,
    /// Diff: only in φ₁.
    pub diff_added: Color,
    /// Diff: only in φ₀.
    pub diff_removed: Color,
    /// Diff: changed.
    pub diff_changed: Color,
    /// Countermodel split marks.
    pub split: Color,
    /// Chart series, one per run.
    pub chart: Vec<Color>,
    /// Failure kinds in the kinds chart, one per kind (never a run's colour).
    pub kinds: Vec<Color>,
}

fn parse_color(s: &str, palette: &HashMap<String, Color>) -> Option<Color> {
    if let Some(c) = palette.get(s) {
        return Some(*c);
    }
    if s == "reset" {
        return Some(Color::Reset);
    }
    s.parse::<Color>().ok()
}

const KEYS: [&str; 27] = [
    "fg",
    "bg",
    "muted",
    "border",
    "border_focus",
    "title",
    "selection_fg",
    "selection_bg",
    "highlight",
    "warning",
    "verdict_equivalent",
    "verdict_not_equivalent",
    "verdict_unparseable",
    "verdict_unknown",
    "verdict_copied",
    "verdict_model_error",
    "op_connective",
    "op_negation",
    "op_quantifier",
    "atom",
    "paren",
    "diff_added",
    "diff_removed",
    "diff_changed",
    "split",
    "chart",
    "kinds",
];

impl Theme {
    fn set(&mut self, key: &str, c: Color) {
        let slot = match key {
            "fg" => &mut self.fg,
            "bg" => &mut self.bg,
            "muted" => &mut self.muted,
            "border" => &mut self.border,
            "border_focus" => &mut self.border_focus,
            "title" => &mut self.title,
            "selection_fg" => &mut self.selection_fg,
            "selection_bg" => &mut self.selection_bg,
            "highlight" => &mut self.highlight,
            "warning" => &mut self.warning,
            "verdict_equivalent" => &mut self.verdict[0],
            "verdict_not_equivalent" => &mut self.verdict[1],
            "verdict_unparseable" => &mut self.verdict[2],
            "verdict_unknown" => &mut self.verdict[3],
            "verdict_copied" => &mut self.verdict[4],
            "verdict_model_error" => &mut self.verdict[5],
            "op_connective" => &mut self.op_connective,
            "op_negation" => &mut self.op_negation,
            "op_quantifier" => &mut self.op_quantifier,
            "atom" => &mut self.atom,
            "paren" => &mut self.paren,
            "diff_added" => &mut self.diff_added,
            "diff_removed" => &mut self.diff_removed,
            "diff_changed" => &mut self.diff_changed,
            "split" => &mut self.split,
            _ => return,
        };
        *slot = c;
    }

    /// A plain theme used only if even the built-in default fails to load.
    fn fallback() -> Theme {
        Theme {
            name: "fallback".into(),
            fg: Color::Reset,
            bg: Color::Reset,
            muted: Color::Gray,
            border: Color::DarkGray,
            border_focus: Color::Blue,
            title: Color::Cyan,
            selection_fg: Color::Black,
            selection_bg: Color::Blue,
            highlight: Color::Yellow,
            warning: Color::Yellow,
            verdict: [
                Color::Green,
                Color::Red,
                Color::Magenta,
                Color::Gray,
                Color::Yellow,
                Color::LightRed,
            ],
            op_connective: Color::Cyan,
            op_negation: Color::Yellow,
            op_quantifier: Color::Magenta,
            atom: Color::Reset,
            paren: Color::Gray,
            diff_added: Color::Green,
            diff_removed: Color::Red,
            diff_changed: Color::Yellow,
            split: Color::Red,
            chart: vec![Color::Blue, Color::Yellow, Color::Green, Color::Magenta],
            kinds: vec![
                Color::LightMagenta,
                Color::LightCyan,
                Color::LightGreen,
                Color::LightYellow,
            ],
        }
    }

    /// Applies a theme file's text over `self`; problems are returned as warnings.
    /// Colours are resolved after the whole `inherits` chain is read, so a child's
    /// `[palette]` reaches the keys it inherits (light's `green` recolours every key
    /// that the default theme wrote as `green`).
    fn apply(&mut self, text: &str, origin: &str, depth: usize, warnings: &mut Vec<String>) {
        let mut palette = HashMap::new();
        let mut colors: Vec<(String, toml::Value, String)> = Vec::new();
        collect(
            text,
            origin,
            depth,
            warnings,
            &mut palette,
            &mut colors,
            &mut self.name,
        );
        // Later entries (children) override earlier ones (parents).
        for (k, v, origin) in colors {
            if k == "chart" || k == "kinds" {
                let list: Option<Vec<Color>> = v.as_array().map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().and_then(|s| parse_color(s, &palette)))
                        .collect()
                });
                match list {
                    Some(l) if !l.is_empty() && k == "chart" => self.chart = l,
                    Some(l) if !l.is_empty() => self.kinds = l,
                    _ => warnings.push(format!(
                        "theme {origin}: colors.{k}: expected a list of colours"
                    )),
                }
                continue;
            }
            match v.as_str().and_then(|s| parse_color(s, &palette)) {
                Some(c) => self.set(&k, c),
                None => warnings.push(format!("theme {origin}: colors.{k}: {v} is not a colour")),
            }
        }
    }

    /// Loads a theme by name or path (user themes first, then built-ins).
    pub fn load(name_or_path: &str) -> (Theme, Vec<String>) {
        let mut warnings = Vec::new();
        let mut theme = Theme::fallback();
        theme.apply(BUILTIN[0].1, "default", 0, &mut warnings);
        if name_or_path != "default" {
            let is_file = std::path::Path::new(name_or_path)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
            let text = if is_file || name_or_path.contains('/') {
                crate::base::fsread::read_to_string(
                    Path::new(name_or_path),
                    crate::base::fsread::MAX_SMALL,
                )
                .map_err(|e| {
                    warnings.push(format!(
                        "theme {name_or_path}: {e}; using the default theme"
                    ));
                })
                .ok()
            } else {
                find_theme_text(name_or_path, &mut warnings)
            };
            match text {
                Some(t) => {
                    let before = theme.clone();
                    let n = warnings.len();
                    theme.apply(&t, name_or_path, 0, &mut warnings);
                    if warnings[n..]
                        .iter()
                        .any(|w| w.contains("using the default theme"))
                    {
                        theme = before;
                    }
                }
                None if !warnings.iter().any(|w| w.contains(name_or_path)) => {
                    let names: Vec<&str> = BUILTIN.iter().map(|b| b.0).collect();
                    warnings.push(format!(
                        "no theme '{name_or_path}' (built-in: {}); using the default theme",
                        names.join(", ")
                    ));
                }
                None => {}
            }
        }
        (theme, warnings)
    }

    /// Colour of a verdict kind.
    pub(crate) fn verdict_color(&self, k: crate::verify::VerdictKind) -> Color {
        self.verdict.get(k as usize).copied().unwrap_or(self.fg)
    }

    /// Colour of the `i`-th row of the failure-kinds chart: the theme's `kinds` list in
    /// turn (neighbouring rows never share one); a colour a run also has in `chart` is
    /// passed over, so a kind never reads as a run (a theme listing only run colours
    /// gets its list as is).
    pub(crate) fn kind_color(&self, i: usize) -> Color {
        let own: Vec<Color> = self
            .kinds
            .iter()
            .filter(|c| !self.chart.contains(c))
            .copied()
            .collect();
        let list = if own.is_empty() { &self.kinds } else { &own };
        list.get(i % list.len().max(1)).copied().unwrap_or(self.fg)
    }
}

pub use crate::base::config_dir::{config_dir, use_config_dir};

/// Reads a theme file and its `inherits` chain: the palette (children override) and
/// every `[colors]` entry in order, parents first, still unresolved.
fn collect(
    text: &str,
    origin: &str,
    depth: usize,
    warnings: &mut Vec<String>,
    palette: &mut HashMap<String, Color>,
    colors: &mut Vec<(String, toml::Value, String)>,
    name: &mut String,
) {
    let table: toml::Table = match text.parse() {
        Ok(t) => t,
        Err(e) => {
            warnings.push(format!("theme {origin}: {e}; using the default theme"));
            return;
        }
    };
    for k in table.keys() {
        if !matches!(k.as_str(), "name" | "inherits" | "palette" | "colors") {
            warnings.push(format!("theme {origin}: unknown key {k} (ignored)"));
        }
    }
    if let Some(parent) = table.get("inherits").and_then(|v| v.as_str()) {
        if depth > 8 {
            warnings.push(format!(
                "theme {origin}: inherits too deeply; ignoring 'inherits'"
            ));
        } else if let Some(text) = find_theme_text(parent, warnings) {
            collect(&text, parent, depth + 1, warnings, palette, colors, name);
        } else {
            warnings.push(format!("theme {origin}: unknown parent theme '{parent}'"));
        }
    }
    if let Some(n) = table.get("name").and_then(|v| v.as_str()) {
        *name = n.to_string();
    }
    if let Some(p) = table.get("palette").and_then(|v| v.as_table()) {
        for (k, v) in p {
            match v.as_str().and_then(|s| parse_color(s, &HashMap::new())) {
                Some(c) => {
                    palette.insert(k.clone(), c);
                }
                None => warnings.push(format!("theme {origin}: palette.{k}: not a colour")),
            }
        }
    }
    if let Some(cs) = table.get("colors").and_then(|v| v.as_table()) {
        for (k, v) in cs {
            if KEYS.contains(&k.as_str()) {
                colors.push((k.clone(), v.clone(), origin.to_string()));
            } else {
                warnings.push(format!("theme {origin}: unknown key colors.{k} (ignored)"));
            }
        }
    }
}

fn find_theme_text(name: &str, warnings: &mut Vec<String>) -> Option<String> {
    if let Some(dir) = config_dir() {
        let p = dir.join("themes").join(format!("{name}.toml"));
        if p.exists() {
            return crate::base::fsread::read_to_string(&p, crate::base::fsread::MAX_SMALL)
                .map_err(|e| warnings.push(format!("{}: {e}", p.display())))
                .ok();
        }
    }
    BUILTIN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| t.to_string())
}

/// sRGB of a colour: hex as given; ANSI names as xterm draws them by default.
pub fn rgb(c: Color) -> Option<(u8, u8, u8)> {
    Some(match c {
        Color::Rgb(r, g, b) => (r, g, b),
        Color::Black => (0, 0, 0),
        Color::Red => (205, 0, 0),
        Color::Green => (0, 205, 0),
        Color::Yellow => (205, 205, 0),
        Color::Blue => (0, 0, 238),
        Color::Magenta => (205, 0, 205),
        Color::Cyan => (0, 205, 205),
        Color::Gray => (229, 229, 229),
        Color::DarkGray => (127, 127, 127),
        Color::LightRed => (255, 0, 0),
        Color::LightGreen => (0, 255, 0),
        Color::LightYellow => (255, 255, 0),
        Color::LightBlue => (92, 92, 255),
        Color::LightMagenta => (255, 0, 255),
        Color::LightCyan => (0, 255, 255),
        Color::White => (255, 255, 255),
        _ => return None,
    })
}

/// WCAG 2 relative luminance.
fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
    let lin = |v: u8| {
        let c = f64::from(v) / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/// WCAG 2 contrast ratio of two colours (1 to 21).
pub fn contrast(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every verdict colour (and the diff and split marks, which carry meaning the same
    /// way) reads at WCAG AA (≥ 4.5) on the theme's background: its `bg` when it sets
    /// one, else a typical terminal background (#1e1e1e dark, #ffffff for `light`).
    #[test]
    fn every_builtin_theme_has_readable_verdict_colours() {
        for (name, _) in BUILTIN {
            let (t, w) = Theme::load(name);
            assert!(w.is_empty(), "{name}: {w:?}");
            let bg = rgb(t.bg).unwrap_or(if name == "light" {
                (255, 255, 255)
            } else {
                (30, 30, 30)
            });
            let mut checked = vec![];
            for (i, c) in t.verdict.iter().enumerate() {
                checked.push((format!("verdict {i}"), *c));
            }
            checked.push(("diff_added".into(), t.diff_added));
            checked.push(("diff_removed".into(), t.diff_removed));
            checked.push(("diff_changed".into(), t.diff_changed));
            checked.push(("split".into(), t.split));
            for (what, c) in checked {
                let fg = rgb(c).unwrap_or_else(|| panic!("{name}: {what} has no fixed colour"));
                let r = contrast(fg, bg);
                assert!(
                    r >= 4.5,
                    "{name}: {what} {c:?} on {bg:?}: contrast {r:.2} < 4.5"
                );
            }
        }
    }

    /// Text drawn on a highlight (the selected row (on `selection_bg`, on `muted` when its pane is not focused), the diff's changed
    /// subformula, the chosen chart bucket, the paused live status) reads at WCAG AA
    /// (≥ 4.5), and so do the highlight and warning colours as text on the background.
    #[test]
    fn every_builtin_theme_has_readable_highlights() {
        for (name, _) in BUILTIN {
            let (t, _) = Theme::load(name);
            let light = name == "light";
            let bg = rgb(t.bg).unwrap_or(if light { (255, 255, 255) } else { (30, 30, 30) });
            let fixed = |what: &str, c: Color| {
                rgb(c).unwrap_or_else(|| panic!("{name}: {what} has no fixed colour"))
            };
            let sel = fixed("selection_fg", t.selection_fg);
            let pairs = [
                (
                    "selection_fg on selection_bg",
                    sel,
                    fixed("selection_bg", t.selection_bg),
                ),
                ("selection_fg on muted", sel, fixed("muted", t.muted)),
                (
                    "selection_fg on highlight",
                    sel,
                    fixed("highlight", t.highlight),
                ),
                ("selection_fg on warning", sel, fixed("warning", t.warning)),
                ("highlight on bg", fixed("highlight", t.highlight), bg),
                ("warning on bg", fixed("warning", t.warning), bg),
            ];
            for (what, fg, on) in pairs {
                let r = contrast(fg, on);
                assert!(
                    r >= 4.5,
                    "{name}: {what}: {fg:?} on {on:?}: contrast {r:.2} < 4.5"
                );
            }
        }
    }

    /// Failure kinds have colours of their own in every built-in theme: none is a
    /// run's chart colour, and each reads at WCAG AA on the background.
    #[test]
    fn every_builtin_theme_gives_failure_kinds_colours_apart_from_runs() {
        for (name, _) in BUILTIN {
            let (t, w) = Theme::load(name);
            assert!(w.is_empty(), "{name}: {w:?}");
            assert!(t.kinds.len() >= 6, "{name}: {:?}", t.kinds);
            let bg = rgb(t.bg).unwrap_or(if name == "light" {
                (255, 255, 255)
            } else {
                (30, 30, 30)
            });
            for i in 0..20 {
                let c = t.kind_color(i);
                assert!(
                    !t.chart.contains(&c),
                    "{name}: row {i} in a run colour {c:?}"
                );
                assert_ne!(c, t.kind_color(i + 1), "{name}: rows {i} and {}", i + 1);
                let r = contrast(rgb(c).unwrap(), bg);
                assert!(r >= 4.5, "{name}: row {i} {c:?}: contrast {r:.2}");
            }
        }
        // A user theme whose kinds repeat run colours: those are passed over.
        let mut t = Theme::fallback();
        t.kinds = vec![t.chart[0], Color::LightRed];
        assert_eq!(t.kind_color(0), Color::LightRed);
        assert_eq!(t.kind_color(1), Color::LightRed);
    }

    /// A child theme's palette reaches the keys it inherits.
    #[test]
    fn light_palette_recolours_inherited_keys() {
        let (light, _) = Theme::load("light");
        let (dark, _) = Theme::load("default");
        assert_eq!(
            light.verdict[0],
            Color::Rgb(0x00, 0x7a, 0x33),
            "light's green"
        );
        assert_ne!(light.verdict, dark.verdict);
        assert_eq!(
            light.op_quantifier,
            Color::Rgb(0x6c, 0x2b, 0xd9),
            "light's violet"
        );
    }

    #[test]
    fn every_bundled_theme_loads_without_warnings() {
        for (name, _) in BUILTIN {
            let (t, w) = Theme::load(name);
            assert!(w.is_empty(), "{name}: {w:?}");
            assert_eq!(t.name, name);
        }
        assert_ne!(Theme::load("light").0, Theme::load("default").0);
    }

    #[test]
    fn bad_themes_warn_and_fall_back() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.toml");
        std::fs::write(&bad, "this is = = not toml").unwrap();
        let (t, w) = Theme::load(bad.to_str().unwrap());
        assert_eq!(t, Theme::load("default").0);
        assert!(w[0].contains("using the default theme"), "{w:?}");
        let partial = dir.path().join("partial.toml");
        std::fs::write(
            &partial,
            "[colors]\nborder = \"#123456\"\nbogus = \"red\"\ntitle = \"not-a-colour\"\n",
        )
        .unwrap();
        let (t, w) = Theme::load(partial.to_str().unwrap());
        assert_eq!(t.border, Color::Rgb(0x12, 0x34, 0x56));
        assert_eq!(t.title, Theme::load("default").0.title);
        assert_eq!(w.len(), 2, "{w:?}");
        let (_, w) = Theme::load("nope");
        assert!(w[0].contains("no theme 'nope'"));
    }
}
