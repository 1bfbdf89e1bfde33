"""Batched requests, two-mode runs and retriever candidates in the Seal-Tools runner (no model)."""

from __future__ import annotations

import json

import pytest

from toollearn.core.errors import RetrievalError
from toollearn.engines import ScriptedEngine
from toollearn.engines.llama_batch import (
    Request,
    SeqRequest,
    _group_by_prompt,
    complete_requests,
)
from toollearn.engines.llama_prefill import common_prefix
from toollearn.evaluation.runners.base import RunWriter
from toollearn.evaluation.runners.seal_tools import (
    SealRunOptions,
    load_prompts,
    options_config,
    recorded_candidates,
    retrieve_candidates,
    run_seal_modes,
    run_seal_tools,
)


@pytest.fixture(scope="module")
def examples():
    return load_prompts("test_in_domain", sample=True)[:4]


def _gold(examples):
    answers = {ex.metadata["prompt"]: ex.metadata["target"] for ex in examples}
    return lambda prompt: answers[prompt[0].content]


def test_prompt_grouping_and_common_prefix():
    reqs = [SeqRequest((1, 2, 3)), SeqRequest((1, 2)), SeqRequest((1, 2, 3), gbnf="root ::= x")]
    assert _group_by_prompt(reqs) == [[0, 2], [1]]
    assert common_prefix((1, 2, 3), (1, 2, 4)) == 2 and common_prefix((), (1,)) == 0


def test_requests_with_the_same_settings_share_one_engine_call():
    engine = ScriptedEngine(lambda p: f"<{p}>")
    reqs = [Request("a", 5), Request("b", 7), Request("c", 5)]
    out = complete_requests(engine, reqs)
    assert [c.text for c in out] == ["<a>", "<b>", "<c>"]  # request order kept
    assert [r["prompts"] for r in engine.requests] == [["a", "c"], ["b"]]
    assert [r["max_tokens"] for r in engine.requests] == [5, 7]


def test_two_modes_write_two_resumable_runs(tmp_path, examples):
    engine = ScriptedEngine(_gold(examples))
    free, cons = SealRunOptions(constrained=False), SealRunOptions(constrained=True)
    wf, wc = RunWriter(tmp_path / "free", {"m": "f"}), RunWriter(tmp_path / "cons", {"m": "c"})
    run_seal_tools(engine, examples[:1], wf, free)  # free already has the first example
    n_before = len(engine.prompts)
    rf, rc = run_seal_modes(engine, examples, [(wf, free), (wc, cons)])
    assert [r["id"] for r in rf] == [r["id"] for r in rc] == [ex.id for ex in examples]
    assert len(engine.prompts) - n_before == 3 + 4  # only what was missing
    assert all(r["retries"] == 0 and r["output"] for r in rf + rc)
    assert json.loads((tmp_path / "cons" / "config.json").read_text()) == {"m": "c"}


class CutEngine(ScriptedEngine):
    """Answers that run out of tokens (finish_reason "length") while they start with CUT."""

    def complete(self, prompts, **kw):
        from dataclasses import replace

        out = super().complete(prompts, **kw)
        return [replace(c, finish_reason="length" if c.text.startswith("CUT") else "stop")
                for c in out]  # fmt: skip


def test_cut_off_answers_go_through_the_repair_loops_seal_check(examples):
    from toollearn.agents.repairs import Turn
    from toollearn.evaluation.runners.seal_tools import (
        SEAL_REPAIRS,
        constraint_plan,
        predict_jobs,
    )

    ex, opts = examples[0], SealRunOptions()
    engine = CutEngine(["CUT 1", "CUT 2", "CUT 3"])
    record = predict_jobs(engine, [(ex, opts)])[0]
    assert record["retries"] == 2 and record["output"] == "CUT 3"  # three tries, no more
    grammars = [r["constraint"].grammar for r in engine.requests]
    assert grammars == [constraint_plan(ex, opts, k, f"CUT {k}").grammar for k in range(3)]
    turn = Turn(list(ex.tools), None, finish_reason="length", context=(ex, opts))
    assert SEAL_REPAIRS.find("CUT", turn).check == "seal_cut_off"
    no_retry = Turn([], None, finish_reason="length", context=(ex, SealRunOptions(retry=False)))
    assert SEAL_REPAIRS.find("CUT", no_retry) is None
    record = predict_jobs(CutEngine(["CUT 1"]), [(ex, SealRunOptions(retry=False))])[0]
    assert record["retries"] == 0


def test_paper_candidates_keep_the_run_config_unchanged():
    cfg = options_config(SealRunOptions())
    assert "candidates" not in cfg and "batch_size" not in cfg
    assert options_config(SealRunOptions(candidates="bm25"))["candidates"] == "bm25"


def test_distinct_tools_reaches_the_grammar_and_the_config_only_when_on(examples):
    from toollearn.evaluation.runners.seal_tools import constraint_plan

    assert "distinct_tools" not in options_config(SealRunOptions())
    on = SealRunOptions(distinct_tools=True)
    assert options_config(on)["distinct_tools"] is True
    ex = examples[0]
    assert "-u1 ::=" in constraint_plan(ex, on, 0, "").grammar
    assert "-u1 ::=" not in constraint_plan(ex, SealRunOptions(), 0, "").grammar


def test_copy_strings_takes_the_example_query_and_is_recorded_only_when_on(examples):
    from toollearn.decoding.seal_tools import copy_rules
    from toollearn.evaluation.runners.seal_tools import constraint_plan

    assert "copy_strings" not in options_config(SealRunOptions())
    on = SealRunOptions(copy_strings=True)
    assert options_config(on)["copy_strings"] is True
    ex = examples[0]
    assert copy_rules(ex.query)[0] in constraint_plan(ex, on, 0, "").grammar
    assert "qstr" not in constraint_plan(ex, SealRunOptions(), 0, "").grammar


def test_stated_optional_reaches_the_grammar_and_the_config_only_when_on(examples):
    from toollearn.evaluation.runners.seal_tools import constraint_plan

    copy = SealRunOptions(copy_strings=True)
    on = SealRunOptions(copy_strings=True, stated_optional=True)
    assert "stated_optional" not in options_config(copy)
    assert options_config(on)["stated_optional"] is True
    ex = next(
        e for e in examples if any(n not in t.required for t in e.tools for n in t.properties)
    )
    assert constraint_plan(ex, on, 0, "").grammar != constraint_plan(ex, copy, 0, "").grammar


def test_retriever_candidates_replace_prompt_and_record_misses(examples):
    got = retrieve_candidates(examples, "bm25", sample=True)
    for ex, new in zip(examples, got):
        assert len(new.tools) == 5 and new.query == ex.query
        assert all(t.name in new.metadata["prompt"] for t in new.tools)
        gold = {c.name for c in ex.calls}
        names = {t.name for t in new.tools}
        assert new.metadata["retrieval_missed"] == sorted(gold - names)
    assert retrieve_candidates(examples, "paper") == list(examples)
    with pytest.raises(RetrievalError):
        retrieve_candidates(examples, "oracle")
    # the names a run records give the same examples back, no retriever needed (rescoring)
    records = [{"id": n.id, "candidates": [t.name for t in n.tools]} for n in got]
    assert recorded_candidates(examples, records, sample=True) == got
    records[0]["candidates"] = ["noSuchTool"]
    with pytest.raises(RetrievalError, match="noSuchTool"):
        recorded_candidates(examples, records, sample=True)


def test_candidates_from_a_fine_tuned_encoder_folder(examples):
    from toollearn.evaluation.runners.seal_tools import candidate_encoder
    from toollearn.retrieval.dense import minilm_path

    assert candidate_encoder("bm25") is None and candidate_encoder("hybrid") is None
    folder = str(minilm_path())  # any SentenceTransformer folder stands in for a trained one
    encoder = candidate_encoder(f"dense:{folder}")
    assert "fine-tuned (sha256" in encoder.model_id
    got = retrieve_candidates(examples, f"dense:{folder}", sample=True, encoder=encoder)
    plain = retrieve_candidates(examples, "dense", sample=True)
    names = [[t.name for t in ex.tools] for ex in got]
    assert names == [[t.name for t in ex.tools] for ex in plain]
    for bad in ("bm25:somewhere", "oracle:x"):
        with pytest.raises(RetrievalError):
            candidate_encoder(bad)
    cfg = options_config(SealRunOptions(candidates="dense:m", retriever_model=encoder.model_id))
    assert cfg["candidates"] == "dense:m" and cfg["retriever_model"] == encoder.model_id
    assert "retriever_model" not in options_config(SealRunOptions(candidates="bm25"))


def test_cli_modes_make_one_run_directory_per_mode(tmp_path):
    import argparse

    from toollearn.cli.common import engine_options
    from toollearn.cli.eval_seal import run_dirs

    args = argparse.Namespace(
        modes="free,constrained", out_root=str(tmp_path), out=None, constrained=True
    )
    assert run_dirs(args) == [(tmp_path / "free", False), (tmp_path / "constrained", True)]
    args = argparse.Namespace(modes=None, out=str(tmp_path), constrained=False)
    assert run_dirs(args) == [(tmp_path, False)]
    with pytest.raises(SystemExit):
        run_dirs(argparse.Namespace(modes="free,oops", out_root=str(tmp_path), out=None))
    assert engine_options("llama", 2, n_seq=16) == {"n_seq": 16, "n_threads": 2}
    assert engine_options("llama", None, n_seq=None) == {}
    assert engine_options("openai:http://x/v1", 2, n_seq=4) == {}


def test_retrieved_runs_record_the_missed_gold_tools(tmp_path, shared_data):
    from toollearn.evaluation.runners.seal_tools import score_records

    examples = load_prompts("test_in_domain", shared_data)[::40]
    retrieved = retrieve_candidates(examples, "bm25", shared_data)
    engine = ScriptedEngine(lambda p: "[]")
    opts = SealRunOptions(constrained=False, candidates="bm25")
    records = run_seal_tools(engine, retrieved, RunWriter(tmp_path, {}), opts)
    assert [r["retrieval_missed"] for r in records] == [
        ex.metadata["retrieval_missed"] for ex in retrieved
    ]
    assert engine.prompts[0][0].content == retrieved[0].metadata["prompt"]
    missed = sum(len(ex.metadata["retrieval_missed"]) for ex in retrieved)
    assert missed > 0  # BM25 over 4,076 tools misses some gold tools
    errors = score_records(records, retrieved)["errors"]
    assert errors["tool_errors"].get("retriever_miss", 0) == missed
