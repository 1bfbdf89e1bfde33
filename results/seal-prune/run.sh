#!/usr/bin/env bash
# The shipped model (tools-135m v3, `--engine tuned`) on the whole Seal-Tools test set (1,354
# queries, constrained, --copy-strings --stated-optional) offered only the candidates the tool
# filter keeps (--prune-candidates 0) and calling each at most once (--distinct-tools), the
# setting that scored best on dev (results/seal-filter-dev/compare-prune.md), then ISO dates
# (`eval seal-filter --iso-dates`), then without the arguments copied from another tool's clause
# (`--foreign-values all`, chosen on dev: results/seal-filter-dev/choice.json), then without the
# copied strings that cut a word (`--whole-words`) and with the required arguments those two
# dropped asked again of the model on the call's own clauses (`--refill tuned`; both chosen on
# dev: results/seal-filter-dev/compare-refill.md), then with every required argument of a
# multi-call answer asked again, generic values and the missing calls asked for (below);
# compared with the post-filtered answers (results/seal-filter) and the unfiltered ones. Two
# resumable 1-thread shards, merged and scored whole; headline/ is the headline's Seal-Tools
# panel.
set -euo pipefail
RUN=runs/seal-prune OUT=results/seal-prune
FLAGS=(--split all --constrained --copy-strings --stated-optional --distinct-tools
  --prune-candidates 0 --n-seq 8 --data-root ../shared/data --engine tuned --threads 1)
source .venv/bin/activate
for k in 1 2; do
  toollearn eval seal-tools "${FLAGS[@]}" --shard "$k/2" --out "$RUN/s$k" &
done
wait
rm -rf "$RUN/all"
toollearn runs merge --out "$RUN/all" "$RUN/s1" "$RUN/s2"
toollearn eval seal-tools "${FLAGS[@]}" --out "$RUN/all" --score-only
mkdir -p "$OUT/answers" "$OUT/headline"
cp "$RUN"/all/{config.json,predictions.jsonl,sessions.jsonl,scores.json} "$OUT/answers/"
toollearn eval seal-filter --run "$OUT/answers" --iso-dates --out "$OUT/dates" \
  --data-root ../shared/data
toollearn eval seal-filter --run "$OUT/answers" --foreign-values all --iso-dates \
  --out "$OUT/foreign-dates" --data-root ../shared/data
toollearn eval seal-filter --run "$OUT/answers" --foreign-values all --whole-words --iso-dates \
  --out "$OUT/foreign-words-dates" --data-root ../shared/data
toollearn eval seal-filter --run "$OUT/answers" --foreign-values all --whole-words \
  --refill tuned --iso-dates --out "$OUT/foreign-words-refill-dates" --data-root ../shared/data
# every required argument of a multi-call answer asked again (--refill-scope required), generic
# values (--generic-values), then the calls the answers leave out (--missing-calls tuned, a
# second pass); all chosen on dev (results/seal-filter-dev/compare-generic.md,
# compare-missing.md); two 1-thread shards each, merged, the same command scores the whole.
sharded() {  # SRC NAME FLAGS...: two 1-thread shards into $RUN, merged into $OUT/NAME, scored
  local src=$1 name=$2
  shift 2
  for k in 1 2; do
    toollearn eval seal-filter --run "$src" "$@" --shard "$k/2" --out "$RUN/$name-s$k" >/dev/null &
  done
  wait
  toollearn runs merge --out "$OUT/$name" "$RUN/$name-s1" "$RUN/$name-s2"
  toollearn eval seal-filter --run "$src" "$@" --out "$OUT/$name"
}
R1=foreign-words-required-generic-dates R2=foreign-words-required-generic-missing-dates
sharded "$OUT/answers" $R1 --foreign-values all --whole-words --refill tuned \
  --refill-scope required --generic-values --iso-dates --data-root ../shared/data
sharded "$OUT/$R1" $R2 --missing-calls tuned --iso-dates --data-root ../shared/data
toollearn report compare results/seal-stated results/seal-filter/seal-stated \
  results/seal-filter/seal-stated-foreign "$OUT/dates" "$OUT/foreign-dates" \
  "$OUT/foreign-words-dates" "$OUT/foreign-words-refill-dates" "$OUT/$R1" "$OUT/$R2" \
  --label "v3, --copy-strings --stated-optional" --label "the same, post-processed" \
  --label "the same, post-processed + foreign values dropped" \
  --label "pruned candidates, each at most once, + ISO dates" \
  --label "pruned, each at most once, + foreign values dropped + ISO dates" \
  --label "... + cut words dropped" --label "... + dropped required values refilled" \
  --label "... + every required value of multi-call answers asked again + generic values" \
  --label "... + missing calls asked for" \
  --data-root ../shared/data --bootstrap 2000 --out "$OUT/compare.md" --json "$OUT/compare.json"
toollearn report compare results/seal/constrained results/seal-full-v3 "$OUT/$R2" \
  --label "base (zero-shot)" --label "tools-135m v3" \
  --label "v3, pruned, each once, post-processed, values and missing calls asked again" \
  --data-root ../shared/data --out "$OUT/headline/compare.md" --json "$OUT/headline/compare.json"
