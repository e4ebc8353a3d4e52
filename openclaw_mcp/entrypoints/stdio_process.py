"""What the stdio servers (``openclaw mcp serve``, ``openclaw-plugin-tools``) share as processes: whole-line
stderr (optionally through the secret redactor), the config guard and SIGINT/SIGTERM watching. The signal
receiver is shared with the registry CLI, which cancels its connecting commands on SIGINT/SIGTERM/SIGHUP.
:func:`exit_deadline` bounds a server process's last moments when plugin code refuses to stop."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

import anyio
import anyio.abc

from openclaw_mcp.application.errors import InvalidConfigError

if TYPE_CHECKING:  # annotations only: the CLI imports this module without loading the container
    from openclaw_mcp.entrypoints.containers import Container

__all__ = ["Stderr", "exit_deadline", "load_config_document", "receive_signals", "watch_signals"]


class Stderr:
    """Whole lines to stderr, flushed; a broken stderr is ignored."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def raw(self, text: str) -> None:
        try:
            self._stream.write(text + "\n")
            self._stream.flush()
        except (OSError, ValueError):
            pass

    def redacted(self, text: str) -> None:
        """Through the secret redactor, line by line (the reference's runtime logger)."""
        from openclaw_mcp.domain.redaction import redact_text_line  # deferred: compiling its patterns is not free

        self.raw("\n".join(redact_text_line(line) for line in text.split("\n")))


async def load_config_document(
    container: Container, env: Mapping[str, str], stderr: Stderr
) -> tuple[dict[str, Any], str] | int:
    """The config guard: the validated, env-substituted document and its path, or exit code 1 after printing
    the invalid-config block (the ``Fix:`` variant, as the reference prints it for ``serve``). A missing file
    is an empty config (as ``ConfigService.load`` has it: no warnings), decided without loading the config
    machinery."""
    if not (container.config_loader.overridden or container.config_store.overridden):
        path: str = container.settings().config_path
        try:
            os.stat(path)
        except FileNotFoundError:
            return {}, path  # what the loader makes of a missing file, without importing it (start-up cost)
        except OSError:
            pass  # the loader reports it
    from openclaw_mcp.entrypoints.cli.render import invalid_config_block, shorten_home
    from openclaw_mcp.entrypoints.paths import resolve_home

    service = container.config_loader(warn=stderr.redacted)
    path = service.path
    try:
        analysis = await service.load()
    except InvalidConfigError as exc:
        shown = shorten_home(exc.path, resolve_home(env))
        stderr.redacted(invalid_config_block(shown, os.path.basename(exc.path), exc.analysis, json_mode=True))
        return 1
    return analysis.document, path


async def receive_signals(
    on_signal: Callable[[signal.Signals], None],
    signums: Iterable[signal.Signals],
    *,
    task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Handle ``signums`` until cancelled, calling ``on_signal`` with each one received.

    Reports started (``task_group.start``) once the handlers are installed; cancellation restores the default
    handlers. Where signals cannot be handled (not the main thread, no signal support) it reports started and
    returns at once: the default handlers stay.
    """
    try:
        receiver = anyio.open_signal_receiver(*signums)
        signals = receiver.__enter__()
    except (NotImplementedError, RuntimeError, ValueError):
        task_status.started()
        return
    try:
        task_status.started()
        async for signum in signals:
            on_signal(signum)
    finally:
        receiver.__exit__(None, None, None)


async def watch_signals(trigger: Callable[[], None]) -> None:
    """SIGINT/SIGTERM call ``trigger`` (the first one starts shutdown; later ones are ignored by it)."""
    await receive_signals(lambda _signum: trigger(), (signal.SIGINT, signal.SIGTERM))


def exit_deadline(status: int, grace_s: float, *, stderr: Stderr, line: str) -> threading.Timer:
    """Make sure the process ends with ``status`` at most ``grace_s`` seconds from now.

    For a server whose work is done (its exit status known) but whose last steps may never finish: the event
    loop's teardown waits for every task, so a plugin task that swallows its cancellation would keep the
    process alive forever (SIGTERM and stdin EOF included). A daemon timer thread — it runs on while the
    interpreter waits for tasks or threads, and never keeps it alive itself — then writes ``line`` to stderr,
    flushes the standard streams and ends the process with ``os._exit(status)``. A process that ends in time
    never hears from it. Returns the started timer (``cancel()`` disarms it)."""

    def expire() -> None:
        stderr.raw(line)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        os._exit(status)

    timer = threading.Timer(grace_s, expire)
    timer.daemon = True
    timer.name = "exit deadline"
    timer.start()
    return timer
