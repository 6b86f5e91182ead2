"""Retrieval: passages for a query (BM25 now; dense and hybrid plug in beside it)."""
