//! Hand labels: the taxonomy and persistence live in [`crate::labels`]; re-exported
//! here for the viewer.

pub use crate::labels::{Category, LabelError, Taxonomy, annotator, append};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_taxonomy_keys_are_free_in_label_mode() {
        let t = Taxonomy::builtin();
        let reserved =
            crate::tui::keymap::Keymap::default().key_names(crate::tui::keymap::Context::Label);
        assert!(t.categories.iter().all(|c| !reserved.contains(&c.key)));
    }

    #[test]
    fn bad_taxonomy_falls_back() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.toml");
        std::fs::write(
            &p,
            "[[category]]\nid = \"x\"\nkey = \"n\"\nside = \"s\"\nname = \"x\"\n",
        )
        .unwrap();
        let reserved =
            crate::tui::keymap::Keymap::default().key_names(crate::tui::keymap::Context::Label);
        let (t, w) = Taxonomy::load(Some(&p), &reserved);
        assert_eq!(t, Taxonomy::builtin());
        assert!(w[0].contains("reserved"), "{w:?}");
    }
}
