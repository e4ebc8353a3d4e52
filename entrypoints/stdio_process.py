"""What the stdio servers (``openclaw mcp serve``, ``openclaw-plugin-tools``) share as processes: whole-line
stderr (optionally through the secret redactor), the config guard and SIGINT/SIGTERM watching."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Mapping
from typing import Any, TextIO

import anyio

from application.errors import InvalidConfigError
from entrypoints.containers import Container

__all__ = ["Stderr", "load_config_document", "watch_signals"]


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
        from domain.redaction import redact_text_line  # deferred: compiling its patterns is not free

        self.raw("\n".join(redact_text_line(line) for line in text.split("\n")))


async def load_config_document(
    container: Container, env: Mapping[str, str], stderr: Stderr
) -> tuple[dict[str, Any], str] | int:
    """The config guard: the validated, env-substituted document and its path, or exit code 1 after printing
    the invalid-config block (the ``Fix:`` variant, as the reference prints it for ``serve``). A missing file
    is an empty config (as ``ConfigService.load`` has it: no warnings), decided without loading the config
    machinery."""
    if not (container.config_loader.overridden or container.config_store.overridden):
        path: str = container.config.config_path()
        try:
            os.stat(path)
        except FileNotFoundError:
            return {}, path  # what the loader makes of a missing file, without importing it (start-up cost)
        except OSError:
            pass  # the loader reports it
    from adapters.filesystem.paths import resolve_home
    from entrypoints.cli.render import invalid_config_block, shorten_home

    service = container.config_loader(warn=stderr.redacted)
    path = service.path
    try:
        analysis = await service.load()
    except InvalidConfigError as exc:
        shown = shorten_home(exc.path, resolve_home(env))
        stderr.redacted(invalid_config_block(shown, os.path.basename(exc.path), exc.analysis, json_mode=True))
        return 1
    return analysis.document, path


async def watch_signals(trigger: Callable[[], None]) -> None:
    try:
        receiver = anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM)
        signals = receiver.__enter__()
    except (NotImplementedError, RuntimeError, ValueError):
        return  # not the main thread, or no signal support: the default handlers stay
    try:
        async for _ in signals:
            trigger()  # the first one starts shutdown; later ones are ignored
    finally:
        receiver.__exit__(None, None, None)
