use super::StreamWriter;
use crate::dataset::{assemble, write};
use crate::grammar::DatasetKind;
use crate::grammar::generate_batch;
use crate::grammar::generator::{Batch, GenParams};

/// The streaming writer makes exactly the bytes `write(assemble(..))` makes.
#[test]
fn streaming_matches_the_assembled_file_byte_for_byte() {
    for kind in [DatasetKind::Pl, DatasetKind::Fol, DatasetKind::Regex] {
        let cfg = kind.grammar().unwrap();
        let params = GenParams {
            depth: 8,
            branching: 30,
            per_category: 3,
            vocab: kind.vocab(),
            ..Default::default()
        };
        let batches: Vec<Batch> = (0..3)
            .map(|b| generate_batch(&cfg, &params, 4, b, &mut |_| {}).unwrap())
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        write(
            &a,
            &assemble(kind.name(), Some(kind), &cfg, &params, 4, &batches),
        )
        .unwrap();
        let mut w = StreamWriter::create(&b, &cfg).unwrap();
        for batch in &batches {
            w.add_batch(batch).unwrap();
        }
        w.finish(kind.name(), Some(kind), &cfg, &params, 4).unwrap();
        let (x, y) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert!(x == y, "{kind:?}: streamed file differs");
        assert!(!dir.path().join("b.json.items.tmp").exists());
    }
}
