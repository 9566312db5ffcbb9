//! The counts behind A2 compliance, A3 accuracy and A4 judge agreement: the one
//! definition of each, shared by `run` (rescore), `report`, the viewer and the exports.

use crate::llm::judge::JudgeAnswer;
use crate::record::SampleRecord;
use crate::verify::VerdictKind;

/// Counts for one group of samples.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Counts {
    /// Samples.
    pub n: usize,
    /// Samples whose autoformalization returned text.
    pub answered: usize,
    /// Of those, φ₁ parsed.
    pub compliant: usize,
    /// Final verdict equivalent.
    pub accurate: usize,
    /// Final verdict `copied` (ψ reproduced the formula).
    pub copied: usize,
    /// Samples with no right or wrong (`folio-i`, scored by text metrics): left out of A3.
    #[serde(skip_serializing_if = "is_zero")]
    pub unscored: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// How a reference task's samples count toward A2 and A3 (None: a dataset's sample).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskScoring {
    /// A reasoning task: A2 is a marked answer read, A3 the answer right.
    Answer,
    /// `folio-a`: as a dataset's autoformalization (φ₁ parsed; verified equivalent).
    Formula,
    /// `folio-i`: A2 is an informalization given — not blank (`unparseable`), not a copy
    /// of the formula (a copy is answered but not compliant, the reply being the answer);
    /// no A3 (scored by text metrics).
    Text,
}

/// Whether a reference task's sample with final verdict `k` is compliant (A2) under
/// `how`: the one rule [`Counts::add_task_kind`] and the per-sample exports share.
pub fn task_compliant(k: VerdictKind, how: TaskScoring) -> bool {
    match how {
        TaskScoring::Answer => matches!(k, VerdictKind::Equivalent | VerdictKind::NotEquivalent),
        TaskScoring::Formula => k.answered() && k != VerdictKind::Unparseable,
        TaskScoring::Text => !matches!(
            k,
            VerdictKind::Unparseable | VerdictKind::Copied | VerdictKind::ModelError
        ),
    }
}

impl Counts {
    /// Counts one sample by its final verdict: the one definition of A2 and A3, used by
    /// `report`, the viewer's chart and every export.
    pub fn add_kind(&mut self, k: VerdictKind) {
        self.n += 1;
        self.answered += usize::from(k.answered());
        self.compliant += usize::from(k.compliant());
        self.accurate += usize::from(k.is_pass());
        self.copied += usize::from(k == VerdictKind::Copied);
    }

    /// Counts one sample of a reference-task run, as `report` on the task counts it: a
    /// failed call is left out; A2 is "gave a usable answer" — a marked answer read
    /// (reasoning tasks: a right or wrong verdict, not the `unknown` of no answer), a
    /// formula that parsed (`folio-a`), an informalization that is neither blank nor a
    /// copy (`folio-i`) —; A3 the task's accuracy (none for `folio-i`).
    pub fn add_task_kind(&mut self, k: VerdictKind, how: TaskScoring) {
        if k == VerdictKind::ModelError {
            return;
        }
        let answered = how == TaskScoring::Text || k.answered();
        self.n += 1;
        self.answered += usize::from(answered);
        self.compliant += usize::from(task_compliant(k, how));
        self.accurate += usize::from(k.is_pass());
        self.copied += usize::from(k == VerdictKind::Copied);
        self.unscored += usize::from(how == TaskScoring::Text);
    }

    /// Counts one sample by the rule of its run: a dataset's ([`Counts::add_kind`]) or a
    /// reference task's ([`Counts::add_task_kind`]).
    pub fn add_scored(&mut self, k: VerdictKind, task: Option<TaskScoring>) {
        match task {
            None => self.add_kind(k),
            Some(how) => self.add_task_kind(k, how),
        }
    }

    /// Counts one sample record.
    pub fn add(&mut self, s: &SampleRecord) {
        self.add_kind(s.verdict.kind());
    }

    /// Adds another group's counts.
    pub fn merge(&mut self, o: &Counts) {
        self.n += o.n;
        self.answered += o.answered;
        self.compliant += o.compliant;
        self.accurate += o.accurate;
        self.copied += o.copied;
        self.unscored += o.unscored;
    }

    /// Share of samples whose ψ was a copy.
    pub(crate) fn copy_share(&self) -> Option<f64> {
        ratio(self.copied, self.n)
    }

    /// A2 as a fraction (None if nothing was answered).
    pub fn compliance(&self) -> Option<f64> {
        (self.answered > 0).then(|| self.compliant as f64 / self.answered as f64)
    }

    /// A3's denominator: the samples that are right or wrong.
    pub fn scored(&self) -> usize {
        self.n - self.unscored.min(self.n)
    }

    /// A3 as a fraction (None when no sample is right or wrong).
    pub fn accuracy(&self) -> Option<f64> {
        let n = self.scored();
        (n > 0).then(|| self.accurate as f64 / n as f64)
    }
}

/// Judge agreement with the verifier.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct JudgeStats {
    /// Judge model.
    pub model: String,
    /// Yes when equivalent.
    pub tp: usize,
    /// Yes when not.
    pub fp: usize,
    /// No when not.
    pub tn: usize,
    /// No when equivalent.
    pub fn_: usize,
    /// Answers without a well-formed `[Answer]`.
    pub unparseable: usize,
}

fn ratio(a: usize, b: usize) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

impl JudgeStats {
    /// Counts one judge answer against the verifier's final verdict (equivalent = positive):
    /// the one definition of A4's confusion matrix.
    pub fn add(&mut self, answer: JudgeAnswer, verifier: VerdictKind) {
        match (answer, verifier.is_pass()) {
            (JudgeAnswer::Yes, true) => self.tp += 1,
            (JudgeAnswer::Yes, false) => self.fp += 1,
            (JudgeAnswer::No, false) => self.tn += 1,
            (JudgeAnswer::No, true) => self.fn_ += 1,
            (JudgeAnswer::Unparseable, _) => self.unparseable += 1,
        }
    }

    /// TP / (TP + FP).
    pub fn precision(&self) -> Option<f64> {
        ratio(self.tp, self.tp + self.fp)
    }
    /// TP / (TP + FN).
    pub fn recall(&self) -> Option<f64> {
        ratio(self.tp, self.tp + self.fn_)
    }
    /// TN / (TN + FP).
    pub fn specificity(&self) -> Option<f64> {
        ratio(self.tn, self.tn + self.fp)
    }
    /// Harmonic mean of precision and recall.
    pub fn f1(&self) -> Option<f64> {
        let (p, r) = (self.precision()?, self.recall()?);
        (p + r > 0.0).then(|| 2.0 * p * r / (p + r))
    }
}
