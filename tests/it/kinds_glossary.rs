//! The book's glossary names every failure kind by its id, so adding a kind (the
//! contributing guide's recipe) cannot leave the list users read behind.

use autoeval::analysis::failure_kind::FailureKind;

#[test]
fn the_glossary_lists_every_failure_kind_and_no_other() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("docs/src/glossary.md")).unwrap();
    let entry: String = text
        .split("\n- **")
        .find(|e| e.starts_with("Failure kind**"))
        .expect("the glossary has a `Failure kind` entry")
        .to_string();
    for k in FailureKind::ALL {
        assert!(
            entry.contains(&format!("`{}`", k.id())),
            "docs/src/glossary.md's `Failure kind` entry does not name `{}`: add it",
            k.id()
        );
    }
    // Every backticked name in the entry is a kind, but the verdict `unknown` it
    // mentions: a renamed or removed kind leaves no stale name behind.
    for (i, part) in entry.split('`').enumerate() {
        if i % 2 == 1 && part != "unknown" {
            assert!(
                FailureKind::from_id(part).is_some(),
                "docs/src/glossary.md names `{part}` as a failure kind, but no kind has that id"
            );
        }
    }
}
