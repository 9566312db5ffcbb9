//! The label taxonomy: categories, their keys and sides, loaded from the built-in file
//! or the user's `taxonomy.toml`.

use std::path::Path;

const DEFAULT: &str = include_str!("taxonomy.toml");

/// One category.
#[derive(Clone, Debug, serde::Deserialize, PartialEq)]
pub struct Category {
    /// Stable id written to labels.jsonl.
    pub id: String,
    /// The key that toggles it.
    pub key: String,
    /// informalization, autoformalization or verdict.
    pub side: String,
    /// Display name.
    pub name: String,
    /// One-line explanation.
    #[serde(default)]
    pub help: String,
}

/// The taxonomy.
#[derive(Clone, Debug, serde::Deserialize, PartialEq)]
pub struct Taxonomy {
    /// Categories in display order.
    #[serde(rename = "category")]
    pub categories: Vec<Category>,
}

use crate::base::config_dir::config_dir;

impl Taxonomy {
    /// The shipped taxonomy.
    pub fn builtin() -> Taxonomy {
        toml::from_str(DEFAULT).unwrap_or(Taxonomy { categories: vec![] })
    }

    /// Loads a taxonomy file; problems fall back to the built-in one with a warning.
    /// `reserved` are the keys label mode binds (a category may not take one).
    pub fn load(path: Option<&Path>, reserved: &[String]) -> (Taxonomy, Vec<String>) {
        let path = match path {
            Some(p) => p.to_path_buf(),
            None => match config_dir().map(|d| d.join("taxonomy.toml")) {
                Some(p) if p.exists() => p,
                _ => return (Taxonomy::builtin(), vec![]),
            },
        };
        let text = match crate::base::fsread::read_to_string(&path, crate::base::fsread::MAX_SMALL)
        {
            Ok(t) => t,
            Err(e) => {
                return (
                    Taxonomy::builtin(),
                    vec![format!(
                        "{}: {e}; using the built-in taxonomy",
                        path.display()
                    )],
                );
            }
        };
        match toml::from_str::<Taxonomy>(&text) {
            Ok(t) => {
                let mut seen = std::collections::HashSet::new();
                for c in &t.categories {
                    if reserved.contains(&c.key) || !seen.insert(c.key.clone()) {
                        return (
                            Taxonomy::builtin(),
                            vec![format!(
                                "{}: key '{}' of '{}' is reserved or used twice (reserved: {}); using the built-in taxonomy",
                                path.display(),
                                c.key,
                                c.id,
                                reserved.join(" ")
                            )],
                        );
                    }
                }
                (t, vec![])
            }
            Err(e) => (
                Taxonomy::builtin(),
                vec![format!(
                    "{}: {e}; using the built-in taxonomy",
                    path.display()
                )],
            ),
        }
    }

    /// The category a key toggles.
    pub(crate) fn by_key(&self, key: &str) -> Option<&Category> {
        self.categories.iter().find(|c| c.key == key)
    }

    /// The category with this id.
    pub fn by_id(&self, id: &str) -> Option<&Category> {
        self.categories.iter().find(|c| c.id == id)
    }

    /// Display name of an id (the id itself if unknown).
    pub fn name<'a>(&'a self, id: &'a str) -> &'a str {
        self.by_id(id).map_or(id, |c| c.name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_taxonomy_is_complete_and_keys_are_unique() {
        let t = Taxonomy::builtin();
        assert!(t.categories.len() >= 15);
        let keys: std::collections::HashSet<_> =
            t.categories.iter().map(|c| c.key.clone()).collect();
        assert_eq!(keys.len(), t.categories.len());
        let ids: std::collections::HashSet<_> = t.categories.iter().map(|c| &c.id).collect();
        assert_eq!(ids.len(), t.categories.len());
        for id in [
            "lucky-pass",
            "verifier-disagrees",
            "negation-misplaced",
            "term-omitted",
            "star-misplaced",
        ] {
            assert!(t.by_id(id).is_some(), "{id}");
        }
    }
}
