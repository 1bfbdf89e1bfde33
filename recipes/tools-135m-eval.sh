#!/usr/bin/env bash
# The tuned tools-135m adapter against the zero-shot base, on the same examples.
#   bash recipes/tools-135m-eval.sh [ADAPTER] [OUT] [PART]
# ADAPTER: a GGUF LoRA applied at run time on `--weights file` (default
# runs/train/tools-135m/adapter.gguf), or `tuned`: the shipped default engine (the adapter
# merged into the weights, F16 prompt reading, Q8_0 decoding), or `tuned:FILE`: the same engine
# with the adapter FILE merged instead of the shipped one. OUT: run folder (default
# runs/eval-tools-135m). PART: N evaluates shard 1/N of each test set (default 8; 1: the whole
# set). Each benchmark runs as two 1-thread processes (shards 1 and N+1 of 2N, which together
# are shard 1/N), is merged, and is compared with the committed base run on the ids both
# finished (`toollearn report compare`, rescored from the raw text). With an adapter file the
# generation engine is `--weights file` (the shipped Q4_1 file reads and decodes), the engine
# every committed base run was made with, so base and tuned differ only by the adapter.
# Steps already finished are resumed, not redone. STEPS (default: all, in this order) picks
# steps: seal-constrained deer-test-dc deer-files deer-valid apps seal-free; APPS_LIMIT
# (default 30) is how many goals of each app. CALL_THRESHOLD: the DEER steps decide Call/NoCall
# by a gate's margin with this threshold (`toollearn eval deer-calibrate` picks it) instead of
# the model's greedy branch; CALL_GATE (default model) names the gate: model or similarity;
# GATE_TOOL=1 calls the pool tool the similarity gate found closest. LABEL (default tools-135m)
# names the tuned row in the compare tables. APPS_CHAT=1 sends the apps' prompts as chat
# messages, the way `datagen apps` trains an adapter (default: raw text, as the base runs).
# APPS_GRAMMAR_ORDER (app, any or typed; default app) is the constrained runs' grammar.
# DISTINCT_TOOLS=1: the constrained Seal-Tools run calls each candidate at most once;
# COPY_STRINGS=1: its string-typed values are spans of the query.
# A runtime adapter slows llama.cpp's prompt reading about 2.7x here (f16 LoRA on a Q4_1
# model, 1 thread), so shard 1/8 of Seal-Tools takes about 25 minutes; `tuned` does not.
set -euo pipefail
ADAPTER=${1:-runs/train/tools-135m/adapter.gguf}
OUT=${2:-runs/eval-tools-135m}
PART=${3:-8}
DATA=${DATA_ROOT:-../shared/data}
TL=${TOOLLEARN:-toollearn}
if [[ $ADAPTER == tuned || $ADAPTER == tuned:* ]]; then
  ENGINE=(--engine "$ADAPTER" --threads 1)
else
  ENGINE=(--engine "llama@$ADAPTER" --weights file --threads 1)
fi
STEPS=${STEPS:-seal-constrained deer-test-dc deer-files deer-valid apps seal-free}
DEER_ARGS=()
if [[ -n ${CALL_THRESHOLD:-} ]]; then
  DEER_ARGS=(--call-threshold "$CALL_THRESHOLD" --call-gate "${CALL_GATE:-model}")
  if [[ -n ${GATE_TOOL:-} ]]; then DEER_ARGS+=(--gate-tool); fi
fi
APPS_LIMIT=${APPS_LIMIT:-30}
APPS_ARGS=()
if [[ -n ${APPS_CHAT:-} ]]; then APPS_ARGS=(--chat); fi
APPS_ARGS+=(--grammar-order "${APPS_GRAMMAR_ORDER:-app}")
LABEL=${LABEL:-tools-135m}
mkdir -p "$OUT"
step() { [[ " $STEPS " == *" $1 "* ]]; }

two_shards() {  # NAME COMMAND...: shards 1 and PART+1 of 2*PART in parallel, merged as shard
  local name=$1; shift     # 1/PART, then scored by the same command on the merged run
  local a="$OUT/$name-s1" b="$OUT/$name-s$((PART + 1))"
  "$@" --shard "1/$((2 * PART))" --out "$a" & "$@" --shard "$((PART + 1))/$((2 * PART))" --out "$b" &
  wait
  if ((PART == 1)); then  # the two halves are the whole set
    "$TL" runs merge --out "$OUT/$name" "$a" "$b"
    "$@" --out "$OUT/$name"
  else
    "$TL" runs merge --out "$OUT/$name" --shard "1/$PART" "$a" "$b"
    "$@" --shard "1/$PART" --out "$OUT/$name"
  fi
}

compare() {  # NAME BASE_RUN: the base vs tuned table, kept beside the tuned run
  "$TL" report compare "$2" "$OUT/$1" --label "base (zero-shot)" --label "$LABEL" \
    --data-root "$DATA" --out "$OUT/$1/compare.md" --json "$OUT/$1/compare.json"
}

# Seal-Tools, the paper's 5 candidates, constrained call lists (official metric)
if step seal-constrained; then
  SEAL_ARGS=()
  if [[ -n ${DISTINCT_TOOLS:-} ]]; then SEAL_ARGS+=(--distinct-tools); fi
  if [[ -n ${COPY_STRINGS:-} ]]; then SEAL_ARGS+=(--copy-strings); fi
  two_shards seal-constrained "$TL" eval seal-tools --split all --constrained --n-seq 8 \
    --data-root "$DATA" "${ENGINE[@]}" "${SEAL_ARGS[@]}"
  compare seal-constrained results/seal/constrained
fi
# DEER test (unseen tools), Decision-Call alone, released format
if step deer-test-dc; then
  two_shards deer-test-dc "$TL" eval deer --split test --skip-search --data-root "$DATA" \
    "${ENGINE[@]}" "${DEER_ARGS[@]}"
  compare deer-test-dc results/deer-test-dc-released
fi
# DEER's two other unseen-tool test files (ToolBench 200, ToolCorpus 126), Decision-Call alone
if step deer-files; then
  for split in tool_bench tool_corpus; do
    two_shards "deer-$split-dc" "$TL" eval deer --split "$split" --skip-search \
      --data-root "$DATA" "${ENGINE[@]}" "${DEER_ARGS[@]}"
    [[ -d results/deer-$split-dc ]] && compare "deer-$split-dc" "results/deer-$split-dc"
  done
fi
# DEER valid (seen tools), the whole decision pipeline: P_DS and P_DC. The base run is shard
# 1/5 of valid, so this one is too.
if step deer-valid; then
  PART_SAVED=$PART; PART=5
  two_shards deer-valid "$TL" eval deer --split valid --data-root "$DATA" "${ENGINE[@]}" \
    "${DEER_ARGS[@]}"
  PART=$PART_SAVED
  compare deer-valid results/deer-valid-base
fi
# Home Search / Trip Booking: system prompt + demos, free and grammar-constrained
if step apps; then
  "$TL" eval apps-table --apps home-search --configs system+demos,constrained \
    --limit "$APPS_LIMIT" --out "$OUT/apps-hs" "${APPS_ARGS[@]}" "${ENGINE[@]}" &
  "$TL" eval apps-table --apps trip-booking --configs system+demos,constrained \
    --limit "$APPS_LIMIT" --out "$OUT/apps-tb" "${APPS_ARGS[@]}" "${ENGINE[@]}" &
  wait
  for cfg in system+demos constrained; do
    compare "apps-hs/home-search/$cfg" "results/apps-table/home-search/$cfg"
    compare "apps-tb/trip-booking/$cfg" "results/apps-table/trip-booking/$cfg"
  done
fi
# Seal-Tools, free generation
if step seal-free; then
  two_shards seal-free "$TL" eval seal-tools --split all --free --n-seq 8 \
    --data-root "$DATA" "${ENGINE[@]}"
  compare seal-free results/seal/free
fi
"$TL" report headline --root "$OUT" --out "$OUT/headline.md" --figure "$OUT/headline.png"
