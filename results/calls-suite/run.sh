#!/usr/bin/env bash
# The general suite's baselines on the whole test split (1,423 items), in process, one core
# each: the base model, the shipped `tuned` without and with the call gate, and `tuned-agent`.
# tuned-gate takes tuned's answers where the gate would not change them (`--reuse`: exact under
# greedy constrained decoding), so run it after tuned.
# Usage: bash results/calls-suite/run.sh [NAME ...]   (default: all four; resumable)
set -euo pipefail
cd "$(dirname "$0")/../.."
TL=${TL:-.venv/bin/toollearn}
run() {  # NAME ARGS...
  local name=$1; shift
  "$TL" eval calls --split test --threads 1 --out "results/calls-suite/$name" "$@"
}
names=("$@"); [ ${#names[@]} -gt 0 ] || names=(base tuned tuned-gate tuned-agent)
for name in "${names[@]}"; do
  case $name in
    base) run base --model base ;;
    tuned) run tuned --model tuned ;;
    tuned-gate) run tuned-gate --model tuned --call-gate --reuse results/calls-suite/tuned ;;
    tuned-agent) run tuned-agent --model tuned-agent ;;
    *) echo "unknown run $name" >&2; exit 2 ;;
  esac
done
