"""MkDocs hook (mkdocs.yml `hooks:`): the error catalogue's pages on the site, from the package.

The pages live in the package (vectorizer/catalogue/<CODE>.md), where `vectorizer errors CODE`
reads them; this hook adds them to the site at build time as errors/<CODE>.md, with an index
(errors/index.md) and a nav entry each, so the site and the command never disagree and nothing
generated is committed under docs/.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # document this checkout's package, installed or not

from vectorizer import catalogue  # noqa: E402

INDEX_TITLE = "Error catalogue"


def _index() -> str:
    rows = "\n".join(f"| [`{code}`]({code}.md) | {catalogue.summary(code)} |" for code in catalogue.codes())
    return (f"# {INDEX_TITLE}\n\n"
            "Every error vectorizer raises carries a code, in the message (`error[VEC-SYNTAX]: ...`) and as\n"
            "the exception's `.code`. Each code's page says what it means, shows an example that fails\n"
            "with it and the rewrite that works; the examples are run by the test suite\n"
            "(`tests/catalogue/`). The same pages are in the terminal:\n\n"
            "```bash\nvectorizer errors              # every code, one line each\n"
            "vectorizer errors VEC-SYNTAX   # one code's page\n```\n\n"
            "| code | what it means |\n| :-- | :-- |\n" + rows + "\n\n"
            "Warnings (`FallbackWarning`, `JitWarning`, `CacheWarning`, `ImportHookWarning`) have no\n"
            "code of their own: a `FallbackWarning` quotes the error, with its code, that sent the\n"
            "function to the element-by-element path. See [Troubleshooting](../troubleshooting.md).\n")


def on_config(config):
    """Expand the nav's catalogue entry into the index and one page per code."""
    pages = ["errors/index.md"] + [{code: f"errors/{code}.md"} for code in catalogue.codes()]
    for i, entry in enumerate(config["nav"] or []):
        if isinstance(entry, dict) and entry.get(INDEX_TITLE) == "errors/index.md":
            config["nav"][i] = {INDEX_TITLE: pages}
    return config


def on_files(files: Files, config) -> Files:
    files.append(File.generated(config, "errors/index.md", content=_index()))
    for code in catalogue.codes():
        files.append(File.generated(config, f"errors/{code}.md", content=catalogue.page(code)))
    return files
