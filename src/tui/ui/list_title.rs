//! The sample list's title: the counts and the filter in force stay at every width;
//! the sort, a running search, loading and proving progress give way first.

use super::text::{self, width};
use crate::tui::app::App;
use crate::tui::layer::Mode;

/// The sample list's title in at most `room` columns.
pub(crate) fn samples_title(app: &App, room: usize) -> String {
    let m = &app.model;
    let count = m.listed_count();
    let filters = m.filter_parts(false);
    let mut extras = app.summary_extras();
    extras.extend(m.listing.sort.title());
    if app.mode() == Mode::Search {
        // Typing a search: what is typed stays in view however narrow the list (its
        // end, when even that is too long); the counts and `+reasoning` stay with it.
        let typed = crate::base::sanitize::one_line(&m.listing.search.field.text);
        let marker = if m.listing.search.reasoning {
            " +reasoning"
        } else {
            ""
        };
        let search = format!("search{marker}: {typed}▏");
        let mut core = vec![count.clone()];
        core.extend(filters.iter().cloned());
        let mut forms = dropping(&core, &extras, &search, "Samples ");
        forms.push(join(&core, &search));
        let mut short = vec![count.clone()];
        short.extend(m.filter_parts(true));
        forms.push(join(&short, &search));
        forms.push(format!("{count} · {search}"));
        // The typed text's end, as much of it as fits beside the counts.
        let head = format!("{count} · search{marker}: …");
        let room_left = room.saturating_sub(width(&head) + 1);
        let tail: String = {
            let mut tail: Vec<char> = typed.chars().rev().collect();
            while width(&tail.iter().rev().collect::<String>()) > room_left && !tail.is_empty() {
                tail.pop();
            }
            tail.iter().rev().collect()
        };
        forms.push(format!("{head}{tail}▏"));
        return text::first_fitting(&forms, room);
    }
    let mut core = vec![count.clone()];
    core.extend(filters);
    core.extend(m.search_part());
    let mut forms = dropping(&core, &extras, "", "Samples ");
    forms.push(core.join(" · "));
    // A long filter names verdicts shortly (`not-eq|unparse`); even that too long, it
    // ends at its last whole word.
    let mut short = vec![count];
    short.extend(m.filter_parts(true));
    short.extend(m.search_part());
    let short = short.join(" · ");
    forms.push(short.clone());
    forms.push(text::cut_at_word(&short, room));
    text::first_fitting(&forms, room)
}

/// `head` + the core parts + the extras, then with fewer extras (a `…` part saying
/// some went), then without any; `last` (when not empty) closes each form.
fn dropping(core: &[String], extras: &[String], last: &str, head: &str) -> Vec<String> {
    let mut forms = Vec::new();
    for keep in (0..=extras.len()).rev() {
        let mut parts: Vec<String> = core.to_vec();
        parts.extend(extras[..keep].iter().cloned());
        if keep < extras.len() {
            parts.push("…".into());
        }
        forms.push(format!("{head}{}", join(&parts, last)));
    }
    let plain = format!("{head}{}", join(core, last));
    if !forms.contains(&plain) {
        forms.push(plain);
    }
    forms
}

/// Parts apart by ` · `, then `last` when there is one.
fn join(parts: &[String], last: &str) -> String {
    let mut s = parts.join(" · ");
    if !last.is_empty() {
        s.push_str(" · ");
        s.push_str(last);
    }
    s
}
