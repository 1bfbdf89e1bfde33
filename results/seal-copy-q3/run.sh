#!/usr/bin/env bash
# --copy-strings on quarter 3 of the Seal-Tools test set: see results/seal-copy/run-quarter.sh.
exec bash results/seal-copy/run-quarter.sh 3
