"""`python -m vectorizer`: the same as the `vectorizer` command."""

from vectorizer.faces.cli.main import main

raise SystemExit(main())
