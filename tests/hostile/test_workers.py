"""§12: a worker killed by the OOM killer (any signal) is one line naming the worker,
the signal and the input, never an internal error."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass

import pytest

from convo.core.errors import ConvoError
from convo.core.pool import FreshPool, ordered_map
from convo.core.ranges import Range


@dataclass
class Task:
    range: Range


def _killed(task: Task) -> int:
    if task.range.start == 100:
        os.kill(os.getpid(), signal.SIGKILL)
    return task.range.start


def test_a_killed_fork_worker_is_named():
    tasks = [Task(Range("big.jsonl", n * 100, n * 100 + 100)) for n in range(4)]
    with pytest.raises(ConvoError) as e:
        list(ordered_map(_killed, tasks, 2))
    text = str(e.value)
    assert "killed by SIGKILL (out of memory?)" in text
    assert text.startswith("big.jsonl (bytes 100-200): a worker process (pid ")
    assert "nothing was written" in text


def test_a_killed_fresh_worker_is_named():
    tasks = [Task(Range("big.jsonl", n * 100, n * 100 + 100)) for n in range(4)]
    with FreshPool(2, ("tests.hostile.test_workers",)) as pool, pytest.raises(ConvoError) as e:
        list(pool.map(_killed, tasks))
    assert str(e.value).startswith("big.jsonl (bytes 100-200): a worker process (pid ")
    assert "killed by SIGKILL" in str(e.value)


def _chatty(n: int) -> int:
    print("a library printing", "x" * n)  # to stdout, which is the result pipe's twin
    return n


@pytest.mark.parametrize("kind", ["fresh", "fork"])
def test_a_worker_printing_to_stdout_does_not_corrupt_the_results(kind, capfd):
    """Issue 34 item 8: what a worker prints goes to the terminal (stderr for a fresh
    worker), never into the results the parent reads."""
    items = [1, 10, 1000, 100_000]
    if kind == "fresh":
        with FreshPool(2, ("tests.hostile.test_workers",)) as pool:
            got = list(pool.map(_chatty, items))
    else:
        got = list(ordered_map(_chatty, items, 2))
    assert got == items
    out, err = capfd.readouterr()
    assert "a library printing" in out + err
