#!/usr/bin/env bash
# The export benchmark: a run of N samples (default 1,000,000) made by repeating the
# samples of a real 2,000-sample offline run under new ids (each line a real record;
# the row index and every export read it as any run), then `export --format inspect`
# (.eval) and `--format parquet` timed as processes with their peak memory.
#
#   bash benches/export.sh                      # 1,000,000 samples under target/bench-data/export
#   N=100000 bash benches/export.sh target/bench-data/export-100k
#
# Needs a release build (cargo build --release) or AUTOEVAL=path/to/autoeval.
set -euo pipefail
A=${AUTOEVAL:-target/release/autoeval}
OUT=${1:-target/bench-data/export}
N=${N:-1000000}
if [ ! -x "$A" ]; then
  echo "build first: cargo build --release (or set AUTOEVAL=path/to/autoeval)" >&2
  exit 2
fi
mkdir -p "$OUT"
seed=$OUT/seed
if [ ! -f "$seed/run.json" ] || ! grep -q '"status": "finished"' "$seed/run.json"; then
  rm -rf "$seed"
  "$A" run --kind fol --model perturb --limit 2000 --quiet --out "$seed"
fi
big=$OUT/run-$N
if [ ! -f "$big/samples.jsonl" ] || [ "$(wc -l < "$big/samples.jsonl")" -ne "$N" ]; then
  rm -rf "$big"
  mkdir -p "$big"
  sed "s/\"id\": \"seed\"/\"id\": \"run-$N\"/" "$seed/run.json" > "$big/run.json"
  # Sample k of the big run is seed line (k mod 2000) with id and idx k.
  perl -e 'open(my $f, "<", $ARGV[0]) or die; my @l = <$f>; my $c = @l;
    for my $k (0 .. $ARGV[1] - 1) {
      my $s = $l[$k % $c];
      $s =~ s/^\{"id":"[^"]*","idx":\d+/{"id":"$k","idx":$k/;
      print $s;
    }' "$seed/samples.jsonl" "$N" > "$big/samples.jsonl"
fi
echo "$(wc -l < "$big/samples.jsonl") samples, $(du -sh "$big/samples.jsonl" | cut -f1) of samples.jsonl"
# The row index is built once, by the first command that reads the run.
"$A" report "$big" > /dev/null
for format in inspect parquet jsonl-flat; do
  dest=$OUT/out-$format
  rm -rf "$dest"
  /usr/bin/time -f "$format: %e s wall (%U s user, %S s sys), %M KB peak RSS" "$A" export --format "$format" --out "$dest" "$big" 2>&1 | grep -v '→'
  du -sh "$dest" | sed "s/^/$format: output /"
done
