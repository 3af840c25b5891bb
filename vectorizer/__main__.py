"""`python -m vectorizer`: the same as the `vectorizer` command."""

from vectorizer.cli import main

raise SystemExit(main())
