"""Optional dependencies: the error, and an install command that works from here.

convo's distribution (``convo-tools``) is not published on PyPI, so ``pip install
'convo-tools[parquet]'`` fails for everyone. The hint names this interpreter's pip (so
the package lands where convo runs) and, when convo was installed from a checkout
(``pip install -e``: its ``direct_url.json``), that checkout with the extra; else the
packages of the extra themselves, which are on PyPI.
"""

from __future__ import annotations

import sys

from convo.core.errors import UsageError

# extra -> the packages it installs (pyproject.toml's [project.optional-dependencies])
EXTRAS = {
    "parquet": ("pyarrow>=14",),
    "spark": ("pyspark>=3.5", "pyarrow>=14"),
    "embed": ("numpy>=2", "wordllama>=0.4", "tokenizers>=0.15"),
    "mcp": ("mcp>=2.3,<3",),
    "typeagent": ("typeagent==0.5.0", "numpy>=2", "wordllama>=0.4", "tokenizers>=0.15"),
}


def _checkout() -> str | None:
    """The folder convo was installed from (``pip install -e DIR``), if any."""
    try:
        import json
        from importlib.metadata import PackageNotFoundError, distribution

        text = distribution("convo-tools").read_text("direct_url.json")
    except (ImportError, PackageNotFoundError, OSError):
        return None
    if not text:
        return None
    try:
        url = json.loads(text).get("url", "")
    except ValueError:
        return None
    return url.removeprefix("file://") if url.startswith("file://") else None


def install_hint(extra: str) -> str:
    """The command that installs ``extra`` into the environment convo runs in."""
    import shlex

    pip = f"{shlex.quote(sys.executable)} -m pip install"
    checkout = _checkout()
    if checkout:
        return f"{pip} -e {shlex.quote(f'{checkout}[{extra}]')}"
    return f"{pip} " + " ".join(shlex.quote(p) for p in EXTRAS[extra])


def missing(what: str, package: str, extra: str) -> UsageError:
    """The error for a feature whose optional ``package`` is not installed."""
    return UsageError(f"{what} needs {package}", hint=install_hint(extra))
