//! Reading an index file's sections for [`super::load_from`]: its warnings and each row.

use super::{In, MAX_WARNINGS};
use crate::record::Metric;
use crate::run::rows::{Extra, MAX_LINE, Row, Scores};
use crate::run::texts::TextSpan;
use crate::verify::VerdictKind;
use std::io::Read;

impl<R: Read> In<R> {
    /// The warnings section: a count, then each warning (made one line: a cache is
    /// input too, and warnings reach the screen).
    pub(super) fn warnings(&mut self) -> Option<Vec<String>> {
        let nwarn = self.u64()?;
        if nwarn > MAX_WARNINGS as u64 {
            return None;
        }
        let mut warnings = Vec::with_capacity(nwarn as usize);
        for _ in 0..nwarn {
            let w: Box<str> = self.str(1 << 16, true)?;
            warnings.push(crate::base::sanitize::one_line(&w).into_owned());
        }
        Some(warnings)
    }

    /// Row `k` of the rows section with its text span and report-only fields; None when
    /// it is malformed or reaches past the `consumed` bytes of `samples.jsonl`.
    pub(super) fn row(&mut self, k: u64, consumed: u64) -> Option<(Row, TextSpan, Extra)> {
        let offset = self.u64()?;
        let len = self.u32()?;
        let [verdict, flags, task] = self.bytes::<3>()?;
        let fails = self.u32()?;
        let (batch, ops, depth) = (self.u16()?, self.u16()?, self.u16()?);
        let mut c = [f64::NAN; Metric::COUNT];
        for x in &mut c {
            *x = self.f64()?;
        }
        let closeness = (flags & (1 << 3) != 0).then_some(c);
        let (tokens_in, tokens_out, cost) = (self.u64()?, self.u64()?, self.f64()?);
        let reasoning_tokens = self.u64()?;
        let phi0_hash = self.u64()?;
        let kinds_key = self.u64()?;
        let span = TextSpan {
            pos: self.u64()?,
            len: self.u32()?,
            sum: self.u32()?,
            line: offset,
            line_len: len,
        };
        let id = self.str(MAX_LINE, true)?;
        if offset.checked_add(u64::from(len))? > consumed || u64::from(span.len) > MAX_LINE {
            return None;
        }
        let has = |bit: u8| flags & (1 << bit) != 0;
        let row = Row {
            offset,
            len,
            id,
            verdict: *VerdictKind::ALL.get(usize::from(verdict))?,
            fails,
            kinds_key,
            batch,
            scores: closeness
                .as_ref()
                .map(Scores::from_values)
                .unwrap_or_default(),
            ops: has(0).then_some(ops),
            depth: has(1).then_some(depth),
            phi0_hash,
            truncated: has(6),
            task: crate::run::task_mark::TaskMark::from_byte(task),
            // Row k's text is span k (a cache lists one text per row).
            text: u32::try_from(k).ok()?,
        };
        let extra = Extra {
            closeness,
            tokens_in,
            tokens_out,
            cost: has(4).then_some(cost),
            reading_note: has(5),
            truncated: has(6),
            reasoning_tokens,
        };
        Some((row, span, extra))
    }
}
