//! A run's breaking point in reports: the fit of A3 against the run's category, the
//! level it crosses, and whether the run's design was adaptive.

use super::Counts;
use crate::analysis::breaking::{self as fit, BreakingPoint, Cell, Logistic};
use crate::record::Manifest;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The breaking point of one run, as the report carries it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Breaking {
    /// `breaking_point: {value, ci: [lo, hi], level, reached, n}`.
    pub breaking_point: BreakingPoint,
    /// Whether the samples came from an adaptive design (per-bucket A3 is then not a
    /// uniform estimate).
    pub adaptive: bool,
    /// The fitted curve (for charts).
    #[serde(skip)]
    pub fit: Option<Logistic>,
    /// The cells it was fitted on (for refitting at another level).
    #[serde(skip)]
    cells: Vec<Cell>,
}

impl Default for Breaking {
    fn default() -> Self {
        Breaking {
            breaking_point: BreakingPoint {
                value: None,
                ci: [None, None],
                level: fit::DEFAULT_LEVEL,
                reached: false,
                n: 0,
            },
            adaptive: false,
            fit: None,
            cells: Vec::new(),
        }
    }
}

impl Breaking {
    /// The breaking point at the default level of per-category counts.
    pub(crate) fn new(by_category: &BTreeMap<usize, Counts>, m: &Manifest) -> Breaking {
        let cells = fit::cells_of(by_category);
        let (breaking_point, fit) = fit::breaking_point(&cells, fit::DEFAULT_LEVEL);
        Breaking {
            breaking_point,
            adaptive: crate::record::adaptive(m).is_some(),
            fit,
            cells,
        }
    }

    /// Refits at another level (`report --level`).
    pub fn at_level(&mut self, level: f64) {
        let (bp, f) = fit::breaking_point(&self.cells, level);
        self.breaking_point = bp;
        self.fit = f;
    }
}

/// The text report's section: one row per run.
pub(crate) fn rows(reports: &[super::RunReport]) -> Vec<Vec<String>> {
    let mut rows = vec![
        [
            "run",
            "by",
            "level",
            "breaking point",
            "95% CI (profile likelihood)",
            "reached",
            "n",
            "design",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for r in reports {
        let bp = &r.breaking.breaking_point;
        let b = |x: Option<f64>| x.map_or_else(|| "beyond the data".into(), |x| format!("{x:.2}"));
        rows.push(vec![
            r.run.clone(),
            r.by.clone(),
            format!("{:.2}", bp.level),
            bp.value
                .map_or_else(|| "not reached".into(), |v| format!("{v:.2}")),
            if bp.reached {
                format!("[{}, {}]", b(bp.ci[0]), b(bp.ci[1]))
            } else {
                "–".into()
            },
            if bp.reached { "yes" } else { "no" }.into(),
            bp.n.to_string(),
            if r.breaking.adaptive {
                "adaptive".into()
            } else {
                "uniform".into()
            },
        ]);
    }
    rows
}

/// The note under the section (method, and what an adaptive design means).
pub(crate) fn note(reports: &[super::RunReport]) -> String {
    let mut out = String::from(
        "Logistic fit of A3 against ln(1 + category) by maximum likelihood on the samples; the \
         breaking point is where predicted A3 crosses the level; 95% CI: profile likelihood; \"not reached\": the curve \
         does not cross inside the data (no extrapolation)\n",
    );
    for r in reports.iter().filter(|r| r.breaking.adaptive) {
        let _ = writeln!(
            out,
            "{}: adaptive run: samples were spent where they narrow the breaking point, so its \
             per-bucket A3 is not a uniform estimate of the bucket (the fit is)",
            r.run
        );
    }
    out
}

/// CSV cells of a run's breaking point: value, low, high, level, reached, n, adaptive.
pub(crate) fn csv_cells(r: &super::RunReport) -> [String; 7] {
    let bp = &r.breaking.breaking_point;
    let f = |x: Option<f64>| x.map(|x| format!("{x:.4}")).unwrap_or_default();
    [
        f(bp.value),
        f(bp.ci[0]),
        f(bp.ci[1]),
        format!("{}", bp.level),
        bp.reached.to_string(),
        bp.n.to_string(),
        r.breaking.adaptive.to_string(),
    ]
}

/// CSV header cells matching [`csv_cells`].
pub(crate) const CSV_HEADER: [&str; 7] = [
    "breaking_point",
    "breaking_point_low",
    "breaking_point_high",
    "breaking_point_level",
    "breaking_point_reached",
    "breaking_point_n",
    "adaptive",
];

/// A loaded run's breaking point by its default category (`compare`), at `level`.
pub fn of_run(run: &super::RunData, level: f64) -> (String, BreakingPoint) {
    let by = super::By::default_for(&run.manifest.dataset.kind);
    let task = crate::run::task::scoring_of(&run.manifest);
    let mut counts: BTreeMap<usize, Counts> = BTreeMap::new();
    for s in &run.samples {
        if let Some(k) = by.key(s) {
            counts
                .entry(k)
                .or_default()
                .add_scored(s.verdict.kind(), task);
        }
    }
    let (bp, _) = fit::breaking_point(&fit::cells_of(&counts), level);
    (by.label().to_string(), bp)
}

/// Breaking points side by side (`compare`): run, category, point and interval.
pub fn side_by_side(points: &[(String, String, BreakingPoint)]) -> String {
    let mut rows = vec![
        ["run", "by", "breaking point (A3 = 50%) [95% CI]", "n"]
            .map(String::from)
            .to_vec(),
    ];
    for (run, by, bp) in points {
        rows.push(vec![
            crate::base::sanitize::one_line(run).into_owned(),
            by.clone(),
            fit::describe(bp),
            bp.n.to_string(),
        ]);
    }
    super::grid::grid(&rows, false)
}
