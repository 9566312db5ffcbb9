#![allow(clippy::unwrap_used)]
use super::*;
use proptest::prelude::*;

fn sample() -> SampleRecord {
    let text = include_str!("../../tests/fixtures/runs/pl-small/samples.jsonl");
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

fn sha(s: &str) -> String {
    Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Texts JSON writes longer than they are (quotes, control characters) and
/// multi-byte characters a cut must not split.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("a".to_string()),
            Just("\"".to_string()),
            Just("\u{1}".to_string()),
            Just("\n".to_string()),
            Just("∀".to_string()),
            Just("🦀".to_string()),
        ],
        0..3000,
    )
    .prop_map(|v| v.concat())
}

#[test]
fn the_json_size_is_what_serde_writes() {
    for s in ["", "a\"b\\c\n\u{1}\u{1f}∀🦀\u{7f}", "\u{8}\u{c}\t\r"] {
        assert_eq!(
            json_size(s),
            serde_json::to_string(s).unwrap().len(),
            "{s:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the texts, the line fits, reads back, keeps a prefix of each cut text,
    /// and says how long the whole was and its digest; a record that fits is untouched.
    #[test]
    fn a_sample_line_always_fits_and_says_what_was_cut(
        reasonings in prop::collection::vec(prop::option::of(text()), 2),
        outputs in prop::collection::vec(text(), 2),
        max in 2048usize..12_000,
    ) {
        let mut rec = sample();
        let round = &mut rec.rounds[0];
        round.informalize.reasoning.clone_from(&reasonings[0]);
        round.informalize.output = Some(outputs[0].clone());
        let af = round.autoformalize.as_mut().unwrap();
        af.reasoning.clone_from(&reasonings[1]);
        af.output = Some(outputs[1].clone());
        let whole = serde_json::to_vec(&rec).unwrap();
        let Some(line) = line_within(&rec, max) else {
            // None only when even the record with every text cut away passes `max`.
            let floor = serde_json::to_vec(&cut_all(rec.clone())).unwrap();
            prop_assert!(floor.len() > max, "gave up though {} fits {max}", floor.len());
            return Ok(());
        };
        prop_assert!(line.len() <= max, "{} > {max}", line.len());
        let back: SampleRecord = serde_json::from_slice(&line).unwrap();
        if whole.len() <= max {
            prop_assert_eq!(&back, &rec);
        }
        prop_assert_eq!(&back.verdict, &rec.verdict);
        let calls = back.calls().zip(rec.calls());
        for (got, was) in calls {
            for (kept, orig, mark) in [
                (&got.reasoning, &was.reasoning, &got.reasoning_cut),
                (&got.output, &was.output, &got.output_cut),
            ] {
                let (Some(kept), Some(orig)) = (kept, orig) else {
                    prop_assert_eq!(kept, orig);
                    continue;
                };
                prop_assert!(orig.starts_with(kept.as_str()));
                if let Some(m) = mark {
                    prop_assert_eq!(m.bytes, orig.len() as u64);
                    prop_assert_eq!(&m.sha256, &sha(orig));
                } else {
                    prop_assert_eq!(kept, orig);
                }
            }
        }
    }
}

#[test]
fn a_sample_with_a_reasoning_over_the_line_limit_is_written_readable() {
    let mut rec = sample();
    // 12 MiB of control characters: 72 MiB as JSON, over the readers' 64 MiB.
    let big = "\u{1}".repeat(12 << 20);
    rec.rounds[0].informalize.reasoning = Some(big.clone());
    let line = line(&rec).unwrap();
    assert!(line.len() <= MAX_LINE);
    let back: SampleRecord = serde_json::from_slice(&line).unwrap();
    let c = back.rounds[0].informalize.reasoning_cut.clone().unwrap();
    assert_eq!(c.bytes, big.len() as u64);
    assert_eq!(c.sha256, sha(&big));
    assert_eq!(
        back.rounds[0].informalize.output,
        rec.rounds[0].informalize.output
    );
}
