#!/usr/bin/env bash
# The general agent following the query's call plan (results/agent-plan/README.md): both modes
# on dev, the mode dev chose (due) on test, fresh and fresh2 and on the demo's 14 real-tool
# tasks, then each paired with the shipped default on the same episodes (compare.md).
#   bash results/agent-plan/run.sh            everything (about 1.5 CPU hours)
#   bash results/agent-plan/run.sh compare    compare.md from the committed runs, no model
set -euo pipefail
source .venv/bin/activate
EP=results/episodes-tool-calls
if [[ ${1:-} != compare ]]; then
  SPLIT=dev bash $EP/run.sh agent-r4-all-sure-call-plan-due agent-r4-all-sure-call-plan-order
  bash $EP/run.sh agent-r4-all-sure-call-plan-due
  SPLIT=fresh bash $EP/run.sh agent-r4-all-sure-call-plan-due
  SPLIT=fresh2 bash $EP/run.sh agent-r4-all-sure-call-plan-due
  python results/demo-answers/probe.py --engine tuned-agent --plan due \
    --out results/demo-answers/agent-r4-all-sure-call-plan-due
fi
{
  echo "# The call plan (due) against the shipped default, episode by episode"
  echo
  echo "dev's default run predates the sure call (\`dev-agent-r4-all\`); the others are"
  echo "\`agent-r4-all-sure-call\`, the default until now. \`python $EP/paired.py A B\` each."
  for pair in "dev-agent-r4-all dev-agent-r4-all-sure-call-plan-due" \
              "dev-agent-r4-all dev-agent-r4-all-sure-call-plan-order" \
              "agent-r4-all-sure-call agent-r4-all-sure-call-plan-due" \
              "fresh-agent-r4-all-sure-call fresh-agent-r4-all-sure-call-plan-due" \
              "fresh2-agent-r4-all-sure-call fresh2-agent-r4-all-sure-call-plan-due"; do
    read -r a b <<< "$pair"
    echo
    echo "## $b"
    echo
    python $EP/paired.py "$EP/$a" "$EP/$b"
  done
} > results/agent-plan/compare.md
