//! The CLI reference (`docs/src/reference/cli.md`), generated from the clap command tree so it cannot
//! drift from `--help`: every subcommand with its about and usage, every argument with
//! its help, default, accepted values and environment variable.

use clap::{Arg, ArgAction, Command, CommandFactory};
use std::fmt::Write as _;

/// Where the reference is checked in, relative to the repository root.
pub const PATH: &str = "docs/src/reference/cli.md";

/// `autoeval cli-reference` (hidden): the reference as Markdown on stdout.
#[derive(clap::Args, Debug)]
pub struct CliReferenceArgs {}

/// Prints the reference.
pub fn run(_args: &CliReferenceArgs) -> anyhow::Result<i32> {
    out!("{}", markdown());
    Ok(0)
}

/// The whole reference as Markdown.
pub fn markdown() -> String {
    let mut root = super::Cli::command();
    // Building fills in bin names (`autoeval run`) and the usage lines.
    root.build();
    let mut s = String::new();
    s.push_str("# CLI reference\n\n");
    s.push_str(
        "<!-- Generated from the clap command tree by `cargo run -- cli-reference > docs/src/reference/cli.md`; \
         do not edit by hand (tests/it/cli_reference.rs fails when this file is stale). -->\n\n",
    );
    s.push_str("Every subcommand and flag of `autoeval`, as `--help` prints them.\n\n");
    let mut all = Vec::new();
    collect(&root, &mut all);
    s.push_str("## Commands\n\n");
    for c in &all {
        let name = c.get_bin_name().unwrap_or_else(|| c.get_name());
        let about = c.get_about().map(ToString::to_string).unwrap_or_default();
        let _ = writeln!(s, "- [`{name}`](#{}) — {}", anchor(name), one_line(&about));
    }
    s.push('\n');
    for c in &mut all {
        section(&mut s, c);
    }
    s.truncate(s.trim_end().len());
    s.push('\n');
    s
}

/// The command and its visible subcommands, depth first, in declaration order.
fn collect(c: &Command, out: &mut Vec<Command>) {
    out.push(c.clone());
    for sub in c.get_subcommands() {
        if !sub.is_hide_set() && sub.get_name() != "help" {
            collect(sub, out);
        }
    }
}

/// A heading's anchor as GitHub and mdBook make it (lower case, spaces to hyphens, other
/// punctuation dropped).
fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One command's section: heading, about, usage, subcommands, arguments.
fn section(s: &mut String, c: &mut Command) {
    let name = c.get_bin_name().unwrap_or_else(|| c.get_name()).to_string();
    let _ = writeln!(s, "## {name}\n");
    let about = c
        .get_long_about()
        .or_else(|| c.get_about())
        .map(ToString::to_string)
        .unwrap_or_default();
    if !about.trim().is_empty() {
        let _ = writeln!(s, "{}\n", about.trim_end());
    }
    let usage = c.render_usage().to_string();
    let usage = usage.trim_start_matches("Usage:").trim();
    let _ = writeln!(s, "```text\n{usage}\n```\n");
    let subs: Vec<&Command> = c
        .get_subcommands()
        .filter(|x| !x.is_hide_set() && x.get_name() != "help")
        .collect();
    if !subs.is_empty() {
        s.push_str("Subcommands:\n\n");
        for x in subs {
            let full = format!("{name} {}", x.get_name());
            let about = x.get_about().map(ToString::to_string).unwrap_or_default();
            let _ = writeln!(
                s,
                "- [`{}`](#{}) — {}",
                x.get_name(),
                anchor(&full),
                one_line(&about)
            );
        }
        s.push('\n');
    }
    let args: Vec<&Arg> = c.get_arguments().filter(|a| shown(a)).collect();
    if !args.is_empty() {
        s.push_str("Arguments:\n\n");
        for a in args {
            argument(s, a);
        }
        s.push('\n');
    }
}

/// Whether an argument belongs in the reference (not hidden, not the built-in help and
/// version flags every command has).
fn shown(a: &Arg) -> bool {
    !a.is_hide_set()
        && !matches!(
            a.get_action(),
            ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
        )
}

/// One argument as a list item: its spelling, help, default, values and variable.
fn argument(s: &mut String, a: &Arg) {
    let value = a.get_value_names().map_or_else(
        || format!("<{}>", a.get_id().as_str().to_uppercase()),
        |v| {
            v.iter()
                .map(|n| format!("<{n}>"))
                .collect::<Vec<_>>()
                .join(" ")
        },
    );
    let takes = a.get_num_args().is_some_and(|n| n.takes_values())
        || matches!(a.get_action(), ArgAction::Set | ArgAction::Append);
    let spelling = if a.is_positional() {
        value
    } else {
        let mut names = Vec::new();
        if let Some(c) = a.get_short() {
            names.push(format!("-{c}"));
        }
        if let Some(l) = a.get_long() {
            names.push(format!("--{l}"));
        }
        let names = names.join(", ");
        if takes {
            format!("{names} {value}")
        } else {
            names
        }
    };
    let help = a
        .get_long_help()
        .or_else(|| a.get_help())
        .map(ToString::to_string)
        .unwrap_or_default();
    let mut lines = help.trim_end().lines();
    let _ = write!(s, "- `{spelling}`");
    if let Some(first) = lines.next() {
        let _ = write!(s, " — {first}");
    }
    s.push('\n');
    // Later paragraphs stay inside the list item.
    for l in lines {
        if l.trim().is_empty() {
            s.push('\n');
        } else {
            let _ = writeln!(s, "  {l}");
        }
    }
    let mut notes = Vec::new();
    if a.is_required_set() {
        notes.push("required".to_string());
    }
    let defaults: Vec<String> = a
        .get_default_values()
        .iter()
        .map(|d| format!("`{}`", d.to_string_lossy()))
        .collect();
    if takes && !defaults.is_empty() {
        notes.push(format!("default {}", defaults.join(", ")));
    }
    let values: Vec<String> = a
        .get_possible_values()
        .iter()
        .filter(|p| !p.is_hide_set())
        .map(|p| format!("`{}`", p.get_name()))
        .collect();
    if takes && !values.is_empty() {
        notes.push(format!("one of {}", values.join(", ")));
    }
    if let Some(env) = a.get_env() {
        notes.push(format!("env `{}`", env.to_string_lossy()));
    }
    if !notes.is_empty() {
        let _ = writeln!(s, "  ({})", notes.join("; "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_follow_github() {
        assert_eq!(
            anchor("autoeval metrics perturb"),
            "autoeval-metrics-perturb"
        );
        assert_eq!(anchor("autoeval labels export"), "autoeval-labels-export");
        assert_eq!(anchor("A `b`, c_d!"), "a-b-c_d");
    }
}
