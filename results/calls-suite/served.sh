#!/usr/bin/env bash
# The general suite through `toollearn serve` and the official openai client (`eval calls --url`):
# the base model, the papers' adapter (tools-135m, `tuned` before the general one) and the
# shipped general `tuned`, each alone (`--preset plain`), and the server as it starts by
# default (`default`: the default preset, the general adapter behind the call gate), one core
# each, the same items as run.sh. `tuned` was general-135m's first stage until its second stage
# shipped (2026-12-03), the GPU-trained adapter since 2026-12-04: served-general and
# served-default hold the first, served-more-default the second, served-gpu-default the server
# as it starts before the plan's open places (2026-12-04), served-gpu-default-open as it starts now.
# Usage: bash results/calls-suite/served.sh [base|tools-135m|general|default|gpu-default ...] [-- EXTRA eval calls FLAGS]
set -euo pipefail
cd "$(dirname "$0")/../.."
TL=${TL:-.venv/bin/toollearn}
names=(); extra=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; extra=("$@"); break; fi
  names+=("$1"); shift
done
[ ${#names[@]} -gt 0 ] || names=(base tools-135m general)
for name in "${names[@]}"; do
  case $name in
    base) port=8171 model=base preset=plain ;;
    tools-135m) port=8172 model=tuned-papers preset=plain ;;
    general) port=8173 model=tuned preset=plain ;;
    default|more-default|gpu-default|gpu-default-open) port=8174 model=tuned preset=default ;;
    *) echo "unknown run $name" >&2; exit 2 ;;
  esac
  "$TL" serve --model "$model" --preset "$preset" --threads 1 --port "$port" --timeout 600 > "/tmp/serve-$name.log" 2>&1 &
  server=$!
  trap 'kill $server 2>/dev/null || true' EXIT
  for _ in $(seq 300); do
    curl -sf "http://127.0.0.1:$port/health" > /dev/null && break
    sleep 1
  done
  "$TL" eval calls --split test --url "http://127.0.0.1:$port/v1" \
    --out "results/calls-suite/served-$name${SUFFIX:-}" "${extra[@]}"
  kill "$server"; wait "$server" 2>/dev/null || true
done
