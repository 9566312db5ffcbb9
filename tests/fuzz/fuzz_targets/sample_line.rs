//! Any bytes as a `samples.jsonl` line: the reader, then rescoring of what it read.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(rec) = serde_json::from_slice::<autoeval::record::SampleRecord>(data) {
        let opts = autoeval::verify::Options {
            timeout: std::time::Duration::from_millis(50),
            ..Default::default()
        };
        let _ = autoeval::run::rescore::rescore_sample(&rec, None, 2, &opts);
        let _ = rec.transport_failure();
    }
});
