"""The `vectorizer` command (main.py: `main(argv) -> int`), its config, I/O and module writer."""
