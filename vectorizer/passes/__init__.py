"""Lowering passes, one per file; `vectorizer.pipeline` holds their order."""
