//! Vocabularies: propositions, objects, predicates with arities, alphabets.

use crate::base::rng::Rng;

const VERBS: &str = include_str!("data/verbs.txt");
const NAMES: &str = include_str!("data/names.txt");
const ALPHABET: &str = "0123456789abcdefghijklmnopqrstuvwxyz";

/// Vocabulary sizes and FOL parameters (defaults: the paper's Table 1).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct VocabParams {
    /// Number of propositions p1…pN (PL, k-SAT).
    pub num_propositions: usize,
    /// Number of objects (FOL constants).
    pub num_objects: usize,
    /// Number of predicates.
    pub num_predicates: usize,
    /// Smallest predicate arity.
    pub min_arity: usize,
    /// Largest predicate arity.
    pub max_arity: usize,
    /// Probability that an object argument becomes an in-scope variable.
    pub free_variable_prob: f64,
    /// Regex alphabet size (symbols 0, 1, …).
    pub alphabet_size: usize,
    /// English verbs and person names instead of pred1… and p1….
    pub english: bool,
}

impl Default for VocabParams {
    fn default() -> Self {
        VocabParams {
            num_propositions: 12,
            num_objects: 12,
            num_predicates: 8,
            min_arity: 1,
            max_arity: 2,
            free_variable_prob: 0.25,
            alphabet_size: 2,
            english: false,
        }
    }
}

/// Problems with vocabulary parameters.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum VocabError {
    /// Arity range is inverted.
    #[error("--min-arity {0} is greater than --max-arity {1}: make min ≤ max")]
    ArityRange(usize, usize),
    /// A count that must be positive is zero.
    #[error("{0} must be at least 1")]
    Zero(&'static str),
    /// Not enough built-in words.
    #[error("only {have} English {what} are available, {want} requested: lower the count")]
    TooFewWords {
        /// What ran short.
        what: &'static str,
        /// How many exist.
        have: usize,
        /// How many were asked for.
        want: usize,
    },
    /// Alphabet too large.
    #[error("alphabet size {0} exceeds 36 (symbols 0-9 and a-z)")]
    Alphabet(usize),
    /// Probability out of range.
    #[error("--free-variable-prob {0} must be between 0 and 1")]
    Probability(f64),
}

/// A concrete vocabulary for one batch.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Vocabulary {
    /// Proposition names.
    pub propositions: Vec<String>,
    /// Object (constant) names.
    pub objects: Vec<String>,
    /// Predicate names with their arities.
    pub predicates: Vec<(String, usize)>,
    /// Regex alphabet.
    pub alphabet: Vec<char>,
}

/// The built-in English verbs with their arities.
pub(crate) fn english_verbs() -> Vec<(&'static str, usize)> {
    VERBS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let v = it.next()?;
            let a = it.next()?.parse().ok()?;
            Some((v, a))
        })
        .collect()
}

/// The built-in person names.
pub(crate) fn english_names() -> Vec<&'static str> {
    NAMES
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::trim)
        .collect()
}

impl Vocabulary {
    /// Draws a vocabulary for one batch.
    pub fn build(p: &VocabParams, rng: &mut Rng) -> Result<Vocabulary, VocabError> {
        if p.min_arity > p.max_arity {
            return Err(VocabError::ArityRange(p.min_arity, p.max_arity));
        }
        if p.min_arity == 0 {
            return Err(VocabError::Zero("--min-arity"));
        }
        if !(0.0..=1.0).contains(&p.free_variable_prob) {
            return Err(VocabError::Probability(p.free_variable_prob));
        }
        if p.alphabet_size > ALPHABET.len() {
            return Err(VocabError::Alphabet(p.alphabet_size));
        }
        let propositions = (1..=p.num_propositions).map(|i| format!("p{i}")).collect();
        let alphabet = ALPHABET.chars().take(p.alphabet_size).collect();
        let (objects, predicates) = if p.english {
            let names = english_names();
            if names.len() < p.num_objects {
                return Err(VocabError::TooFewWords {
                    what: "names",
                    have: names.len(),
                    want: p.num_objects,
                });
            }
            let verbs: Vec<_> = english_verbs()
                .into_iter()
                .filter(|(_, a)| (p.min_arity..=p.max_arity).contains(a))
                .collect();
            if verbs.len() < p.num_predicates {
                return Err(VocabError::TooFewWords {
                    what: "verbs in the arity range",
                    have: verbs.len(),
                    want: p.num_predicates,
                });
            }
            let objs = rng
                .sample_indices(names.len(), p.num_objects)
                .into_iter()
                .map(|i| names[i].to_string())
                .collect();
            let preds = rng
                .sample_indices(verbs.len(), p.num_predicates)
                .into_iter()
                .map(|i| (verbs[i].0.to_string(), verbs[i].1))
                .collect();
            (objs, preds)
        } else {
            let objs = (1..=p.num_objects).map(|i| format!("p{i}")).collect();
            let preds = (1..=p.num_predicates)
                .map(|i| (format!("pred{i}"), rng.range(p.min_arity, p.max_arity)))
                .collect();
            (objs, preds)
        };
        Ok(Vocabulary {
            propositions,
            objects,
            predicates,
            alphabet,
        })
    }
}
