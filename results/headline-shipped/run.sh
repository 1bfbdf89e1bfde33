#!/usr/bin/env bash
# The headline of what ships: tools-135m v3 (`tuned`) on Seal-Tools and DEER valid, as in
# results/headline-v3, and on Seal-Tools also in the best setting chosen on dev
# (--copy-strings --stated-optional, the candidates pruned by the tool filter, each called at
# most once, foreign values and cut words dropped, every required argument of a multi-call
# answer asked again, generic values taken, the missing calls asked for and ISO dates:
# results/seal-prune);
# on DEER's three unseen-tool sets the default DEER agent, run whole (v3 writing the arguments,
# results/eval-dec-gate), its Call decision made by the shipped call gate (the embedded MiniLM
# with the LoRA adapter deer-call-gate, trained for ranking and the decision, threshold picked
# on valid), beside the earlier ranking-only LoRA gate (gates only:
# results/deer-gates-only/*-mix100-lora-e2) and the earlier v3 agent with the plain MiniLM
# gate; and the apps adapter apps-135m (`tuned-apps`: apps-135m-v5, trained again to the end of
# its epoch, shipped by the rule in results/eval-apps-135m-v5-retrained/decision.md) on the two
# apps, free (system + demos), its programs' bound calls checked against the goal (no model:
# results/apps-bounds) and the programs a label-free check flags asked for again, 8 sampled
# tries at temperature 1.0, each showing other demos, the setting chosen on the apps' dev sets
# (results/apps-retry/run-shifted.sh; model alone, checked only and the first retry setting
# beside); each against the base model on the same examples.
set -euo pipefail
source .venv/bin/activate
A=results/apps-retry/test-shifted
H=results/headline-shipped
for s in test tool_bench tool_corpus; do
  base=results/deer-$s-dc
  [ "$s" = test ] && base=results/deer-test-dc-released
  mkdir -p "$H/deer-$s-dc"
  toollearn report compare "$base" "results/eval-v3-dc/deer-$s-dc" \
    "results/deer-gates-only/$s-mix100-lora-e2" "results/eval-dec-gate/deer-$s-dc" \
    --label "base (zero-shot)" --label "v3, embedded MiniLM gate (before)" \
    --label "ranking-only LoRA MiniLM gate (before; gates only)" \
    --label "shipped DEER agent, decision-trained LoRA MiniLM gate" \
    --data-root ../shared/data --out "$H/deer-$s-dc/compare.md" --json "$H/deer-$s-dc/compare.json"
done
toollearn report headline \
  --panel seal-constrained=results/seal-prune/headline \
  --panel seal-free=results/seal-free-v3 \
  --panel deer-test-dc=$H/deer-test-dc \
  --panel deer-tool_bench-dc=$H/deer-tool_bench-dc \
  --panel deer-tool_corpus-dc=$H/deer-tool_corpus-dc \
  --panel deer-valid=results/eval-v3-gates/deer-valid \
  --panel "apps-hs/home-search/system+demos=$A/home-search/system+demos" \
  --panel "apps-tb/trip-booking/system+demos=$A/trip-booking/system+demos" \
  --out $H/headline.md --figure $H/headline.png
