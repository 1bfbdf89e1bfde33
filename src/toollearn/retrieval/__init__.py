"""Tool and demonstration retrieval: BM25 (bm25s), dense (embedded MiniLM), hybrid (RRF),
persisted indexes, and the candidate sets of the Seal-Tools and DEER protocols.

Heavy libraries (bm25s, sentence-transformers, scikit-learn) load only when an index is built.
"""

from toollearn.retrieval.base import Hit, Retriever
from toollearn.retrieval.bm25 import BM25Retriever
from toollearn.retrieval.candidates import (
    DEER_MIX,
    deer_pool,
    pick_deer_mode,
    seal_candidate_examples,
    seal_candidates,
    tool_clusters,
)
from toollearn.retrieval.demos import DemoRetriever
from toollearn.retrieval.dense import DenseRetriever, MiniLMEncoder
from toollearn.retrieval.hybrid import HybridRetriever
from toollearn.retrieval.store import default_index_root, index_path, open_index, read_manifest
from toollearn.retrieval.text import IndexFields, example_text, tokenize, tool_text
from toollearn.retrieval.tools import ToolRetriever

__all__ = [
    "DEER_MIX",
    "BM25Retriever",
    "DemoRetriever",
    "DenseRetriever",
    "Hit",
    "HybridRetriever",
    "IndexFields",
    "MiniLMEncoder",
    "Retriever",
    "ToolRetriever",
    "deer_pool",
    "default_index_root",
    "example_text",
    "index_path",
    "open_index",
    "pick_deer_mode",
    "read_manifest",
    "seal_candidate_examples",
    "seal_candidates",
    "tokenize",
    "tool_clusters",
    "tool_text",
]
