"""``--check`` of the store's vectors, for ``convo embed --check`` and ``convo index
--check`` (which checks them too when the store has some)."""

from __future__ import annotations

from convo.cli.runtime import err as say


def check(path) -> int:
    """``--check``: 0 when the vectors match the store (or there are none), else 1."""
    from convo.embed import check_vectors

    result = check_vectors(path)
    if result is None:
        say("the store has no vectors (run `convo embed`)")
        return 0
    for problem in result.problems:
        say(f"vectors: {problem}")
    from convo.core.plural import counted

    verdict = "match" if result.ok else "do not match"
    say(f"vectors of {result.model} {verdict} the store ({counted(result.checked, 'message')})")
    return 0 if result.ok else 1
