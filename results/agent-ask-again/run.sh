#!/usr/bin/env bash
# The shipped general agent (tuned-agent: tools-135m + agent-135m, behind the call gate) with
# --ask-again-on-repeat, on the held-out episodes where it repeated a call without it (dev: the
# committed run without the sure call, as it was made; test and fresh: with it).
# (fresh2: run after the option was left off by default, to check it on a set it was not seen on.)
# bash results/agent-ask-again/run.sh [SET...]; then python results/agent-ask-again/compare.py
set -euo pipefail
source .venv/bin/activate
HERE=results/agent-ask-again RUNS=results/episodes-tool-calls
mkdir -p runs/agent-ask-again
_run() {  # $1 name, $2 committed run, $3 trajectories, $4...: flags
  local name=$1 committed=$2 file=$3
  shift 3
  python $HERE/subset.py "$RUNS/$committed" "$file" "runs/agent-ask-again/$name.json"
  toollearn eval episodes --agent tool-calls --engine tuned-agent --threads 1 "$@" \
    --ask-again-on-repeat --file "runs/agent-ask-again/$name.json" --out "$HERE/$name"
}
want=" ${*:-dev test fresh fresh2} "
run() {  # only the sets asked for
  [[ $want == *" $1 "* ]] && _run "$@"
  return 0
}
run dev dev-agent-r4-all results/umi-stop-gate/dev-set/trajectories_dev.json --no-sure-call
run test agent-r4-all-sure-call results/datagen/umi/trajectories_test.json
run fresh fresh-agent-r4-all-sure-call results/datagen/umi-fresh-test/trajectories_test.json
run fresh2 fresh2-agent-r4-all-sure-call results/datagen/umi-fresh-test-2/trajectories_test.json
