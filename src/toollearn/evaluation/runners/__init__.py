"""Benchmark runners: resumable loops that write predictions and scores for one benchmark."""
