# The held-out trajectory sets the plan changes run on (sourced by results/agent-plan-*/run.sh).
declare -A FILES=(
  [dev]=results/umi-stop-gate/dev-set/trajectories_dev.json
  [test]=results/datagen/umi/trajectories_test.json
  [fresh]=results/datagen/umi-fresh-test/trajectories_test.json
  [fresh2]=results/datagen/umi-fresh-test-2/trajectories_test.json
  [fresh3]=results/datagen/umi-fresh-test-3/trajectories_test.json
)
