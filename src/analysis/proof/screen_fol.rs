//! The first-order screen: a candidate's values on a few small random models (and
//! models where φ₀ and φ₁ differ, checked first), and the verifier's countermodels for
//! candidates it refuted. How an edit is screened without building the candidate is
//! in [`arena`].

mod arena;
pub(crate) use arena::FolArena;

#[cfg(test)]
use super::fol_model::random_model;
use super::fol_model::{Dense, Model, Symbols, from_finite};
use super::logic::Pool;
use super::screen::Rand;
use crate::syntax::Formula;

/// Random models a first-order candidate is evaluated on.
const MODELS: usize = 64;
/// Random models searched for ones where φ₀ and φ₁ differ.
const PROBES: usize = 512;
/// Distinguishing models kept (checked first: a candidate must flip φ₀ there).
const DISTINGUISHING: usize = 16;

/// First-order screen: φ₁'s value on each of a few small random models.
pub(crate) struct FolScreen {
    syms: Symbols,
    models: Vec<Dense>,
    target: Vec<bool>,
    /// The models as drawn, for checking the compiled evaluation against them.
    #[cfg(test)]
    maps: Vec<Model>,
}

impl FolScreen {
    /// Models over the symbols of both sides (and of the arities an edit may give a
    /// predicate), with φ₁'s value on each. Models where φ₀ and φ₁ differ come first:
    /// found among random ones, else `countermodel` (the verifier's, when it has to be
    /// asked) and small perturbations of it.
    pub fn new(
        a: &Formula,
        b: &Formula,
        pool: &Pool,
        countermodel: impl FnOnce() -> Option<crate::verify::model::FiniteModel>,
    ) -> FolScreen {
        let mut rng = Rand::new(0xD1B5_4A32_D192_ED03);
        let mut free: Vec<String> = a.free_variables().into_iter().collect();
        free.extend(b.free_variables());
        let names: Vec<String> = pool.consts.iter().chain(&free).cloned().collect();
        // Every random model draws these symbols; a countermodel may add some.
        let mut syms = Symbols::from_pool(pool, &names);
        let layout = syms.layout(pool, &names);
        #[cfg(test)]
        let start = rng.clone();
        // Drawn into one buffer, whose arrays every draw reuses.
        let mut buf = Dense::default();
        let models: Vec<Dense> = (0..MODELS)
            .map(|i| {
                layout.draw(i, &mut rng, &mut buf);
                buf.clone()
            })
            .collect();
        // φ₀'s and φ₁'s symbols are all numbered: a countermodel's extra ones, numbered
        // later, do not change how they compile.
        let (pa, pb) = (syms.compile(a, &[]), syms.compile(b, &[]));
        let mut env = Vec::new();
        let mut differs = |d: &Dense| pa.eval(d, &mut env) != pb.eval(d, &mut env);
        let mut first: Vec<Dense> = Vec::new();
        #[cfg(test)]
        let mut maps: Vec<Model> = Vec::new();
        // A probe keeps only the tables φ₀ and φ₁ read; one kept is drawn again whole.
        let reading = layout.reading(&[&pa, &pb]);
        let mut whole = Dense::default();
        for i in 0..PROBES {
            if first.len() >= DISTINGUISHING {
                break;
            }
            let before = rng.clone();
            reading.draw(i + 7, &mut rng, &mut buf);
            if differs(&buf) {
                // A random model's symbols are all numbered (nothing is added for it):
                // drawn whole, it is what its maps would give.
                layout.draw(i + 7, &mut before.clone(), &mut whole);
                first.push(whole.clone());
                #[cfg(test)]
                maps.push(random_model(i + 7, pool, &names, &mut before.clone()));
            }
        }
        if first.is_empty()
            && let Some(fm) = countermodel()
        {
            let base = from_finite(&fm, pool, &names, &mut rng);
            let mut near: Vec<Model> = Vec::new();
            for _ in 0..DISTINGUISHING {
                let mut m = base.clone();
                // Flip a few tuples: nearby models keep most of what distinguishes.
                for ext in m.preds.values_mut().flatten() {
                    if !ext.1.is_empty() && rng.below(3) == 0 {
                        let k = rng.below(ext.1.len());
                        ext.1[k] = !ext.1[k];
                    }
                }
                if differs(&syms.dense(&m)) {
                    near.push(m);
                }
            }
            near.insert(0, base);
            for m in &near {
                syms.add(m);
            }
            first = near.iter().map(|m| syms.dense(m)).collect();
            #[cfg(test)]
            {
                maps = near;
            }
        }
        let mut dense = first;
        dense.extend(models);
        #[cfg(test)]
        let maps = {
            let mut rng = start;
            let mut maps = maps;
            maps.extend((0..MODELS).map(|i| random_model(i, pool, &names, &mut rng)));
            maps
        };
        let target = dense.iter().map(|m| pb.eval(m, &mut Vec::new())).collect();
        FolScreen {
            syms,
            models: dense,
            target,
            #[cfg(test)]
            maps,
        }
    }

    /// [`FolScreen::agrees`] by the reference semantics: `f` evaluated by name on the
    /// models as drawn.
    #[cfg(test)]
    fn agrees_by_name(&self, f: &Formula) -> bool {
        self.maps
            .iter()
            .zip(&self.target)
            .all(|(m, t)| m.eval(f, &mut Vec::new()) == *t)
    }

    /// Whether `f` takes φ₁'s value on every model.
    pub fn agrees(&self, f: &Formula) -> bool {
        let p = self.syms.compile(f, &[]);
        let mut env = Vec::new();
        self.models
            .iter()
            .zip(&self.target)
            .all(|(m, t)| p.eval(m, &mut env) == *t)
    }
}

/// Countermodels the verifier returned for candidates it refuted, with φ₁'s value on
/// each: a later candidate that takes another value on one is refuted without asking
/// the verifier again (the screen's models are random; these are where the screen
/// was wrong). Sound: a learned model is a structure (what the countermodel leaves out
/// drawn at random) and [`Model::eval`] reads a formula as the verifier does (a term by
/// the innermost binder of its name, else as a constant; a predicate by name and
/// arity), so a candidate whose value there differs from φ₁'s is not equivalent.
pub(crate) struct Learned {
    models: Vec<(Model, bool)>,
    names: Vec<String>,
    rng: Rand,
}

impl Learned {
    /// No countermodel learned yet, for explaining φ₁ = `b` from `a`.
    pub fn new(a: &Formula, b: &Formula, pool: &Pool) -> Learned {
        let mut free: Vec<String> = a.free_variables().into_iter().collect();
        free.extend(b.free_variables());
        let names = pool.consts.iter().chain(&free).cloned().collect();
        Learned {
            models: Vec::new(),
            names,
            rng: Rand::new(0x2545_F491_4F6C_DD1D),
        }
    }

    /// Keeps the verifier's countermodel for a refuted candidate (φ₁ is `b`).
    pub fn learn(&mut self, c: &crate::verify::Countermodel, b: &Formula, pool: &Pool) {
        if let Some(fm) = crate::verify::model::FiniteModel::from_countermodel(c) {
            let m = from_finite(&fm, pool, &self.names, &mut self.rng);
            let t = m.eval(b, &mut Vec::new());
            self.models.push((m, t));
        }
    }

    /// Whether a learned countermodel shows `g` is not equivalent to φ₁.
    pub fn refutes(&self, g: &Formula) -> bool {
        let mut env = Vec::new();
        self.models.iter().any(|(m, t)| m.eval(g, &mut env) != *t)
    }
}
