#!/usr/bin/env bash
# --copy-strings on quarter 2 of the Seal-Tools test set: see results/seal-copy/run-quarter.sh.
exec bash results/seal-copy/run-quarter.sh 2
