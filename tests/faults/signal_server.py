"""A stdio MCP "server" for the signal-teardown tests: it builds a small process tree in its own process
group and then never finishes connecting.

The tree: this process, a ``sleep 1000`` child, and a forked child whose own forked child (the grandchild)
ignores SIGTERM. Each member appends its pid to the file named by ``SIGNAL_SERVER_PIDS`` once it is in its
final state (the grandchild after it ignores SIGTERM). ``SIGNAL_SERVER_MODE``: ``hang`` never answers
``initialize``; ``slow`` answers ``initialize`` and then never answers anything else (connected, but the
catalog never arrives). stdin EOF is ignored: only signals to the group end the tree.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

PIDS_VAR = "SIGNAL_SERVER_PIDS"
MODE_VAR = "SIGNAL_SERVER_MODE"
MEMBERS = 4
"""How many pids the tree records: server, sleep child, forked child, SIGTERM-ignoring grandchild."""


def _record(path: str, pid: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, f"{pid}\n".encode())
    finally:
        os.close(fd)


def _sleep_forever() -> None:
    while True:
        time.sleep(1000)


def _fork_stubborn_pair(path: str) -> None:
    if os.fork() != 0:
        return
    try:  # the child: forks the grandchild, records itself, sleeps
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            _record(path, os.getpid())
            _sleep_forever()
        _record(path, os.getpid())
        _sleep_forever()
    finally:
        os._exit(0)


def _answer(message: dict[str, object]) -> None:
    if message.get("method") != "initialize" or "id" not in message:
        return
    result = {
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "signal-server", "version": "1.0.0"},
    }
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()


def main() -> None:
    path = os.environ[PIDS_VAR]
    mode = os.environ.get(MODE_VAR, "hang")
    sleeper = subprocess.Popen(["sleep", "1000"], stdin=subprocess.DEVNULL)
    _record(path, sleeper.pid)
    _fork_stubborn_pair(path)
    _record(path, os.getpid())
    for line in sys.stdin:
        if mode == "slow":
            try:
                _answer(json.loads(line))
            except ValueError:
                pass
    _sleep_forever()  # stdin EOF does not end the server


if __name__ == "__main__":
    main()
