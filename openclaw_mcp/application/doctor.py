"""``openclaw mcp doctor``: static setup checks of configured servers (spec cli-registry §5)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.registry import TransportWarnings
from openclaw_mcp.domain.doctor import DoctorIssue, command_candidates, sensitive_value_warnings, server_report
from openclaw_mcp.domain.names import operator_store_key
from openclaw_mcp.domain.status import auth_status, auth_view
from openclaw_mcp.domain.transport import HttpConfig, StdioConfig

if TYPE_CHECKING:
    from openclaw_mcp.application.ports.host_files import HostFiles
    from openclaw_mcp.application.ports.oauth import OAuthStatusReader

__all__ = ["DOCTOR_CONCURRENCY", "Doctor", "ProbeCheck"]

DOCTOR_CONCURRENCY = 4

ProbeCheck = Callable[[str, dict[str, Any]], Awaitable[list[DoctorIssue]]]


class Doctor:
    def __init__(
        self,
        files: HostFiles,
        oauth: OAuthStatusReader,
        warnings: TransportWarnings,
        env: Mapping[str, str],
        probe: ProbeCheck | None = None,
    ) -> None:
        self._files = files
        self._oauth = oauth
        self._warnings = warnings
        self._env = env
        self._probe = probe

    async def check_all(self, names: list[str], servers: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
        """Reports in the order of ``names``, at most four checks in flight. When a check raises, the first
        error (in ``names`` order) is re-raised after every check has settled."""
        import anyio  # deferred: importing the use case (the CLI's command table) does not load anyio

        results: dict[str, list[DoctorIssue] | BaseException] = {}
        limiter = anyio.CapacityLimiter(DOCTOR_CONCURRENCY)

        async def run(name: str) -> None:
            async with limiter:
                try:
                    results[name] = await self.check(name, servers[name])
                except (ApplicationError, OSError) as exc:  # collected; re-raised below once all checks settled
                    results[name] = exc

        async with anyio.create_task_group() as tg:
            for name in names:
                tg.start_soon(run, name)
        reports = []
        for name in names:
            outcome = results[name]
            if isinstance(outcome, BaseException):
                raise outcome
            reports.append(server_report(name, outcome))
        return reports

    async def check(self, name: str, server: dict[str, Any]) -> list[DoctorIssue]:
        issues: list[DoctorIssue] = []
        resolution = self._warnings.resolve(name, server)
        config = resolution.config
        if server.get("enabled") is False:
            issues.append(DoctorIssue("warning", "server is disabled"))
        elif config is None:
            issues.append(DoctorIssue("error", "server transport is invalid"))
        elif isinstance(config, StdioConfig):
            issues += await self._stdio_checks(config)
        else:
            issues += await self._http_checks(name, server, config)
        issues += sensitive_value_warnings(server)
        tool_filter = server.get("toolFilter")
        if isinstance(tool_filter, dict) and not any(
            isinstance(tool_filter.get(k), list) for k in ("include", "exclude")
        ):
            issues.append(DoctorIssue("warning", "toolFilter is present but has no include or exclude list"))
        if (
            self._probe is not None
            and server.get("enabled") is not False
            and not any(i.level == "error" for i in issues)
        ):
            issues += await self._probe(name, server)
        return issues

    async def _stdio_checks(self, config: StdioConfig) -> list[DoctorIssue]:
        issues = []
        process_cwd = self._files.cwd()
        candidates = command_candidates(
            config.command,
            cwd=config.cwd,
            env_path=(config.env or {}).get("PATH"),
            process_path=self._env.get("PATH"),
            process_cwd=process_cwd,
            windows=os.name == "nt",
            pathext=self._env.get("PATHEXT"),
        )
        found = False
        for candidate in candidates:
            if await self._files.is_executable_file(candidate):
                found = True
                break
        if not found:
            issues.append(DoctorIssue("error", f"stdio command not found or not executable: {config.command}"))
        if config.cwd is not None:
            target = os.path.join(process_cwd, config.cwd)
            if not await self._files.is_directory(target):
                issues.append(DoctorIssue("error", f"stdio cwd does not exist: {config.cwd}"))
        return issues

    async def _http_checks(self, name: str, server: dict[str, Any], config: HttpConfig) -> list[DoctorIssue]:
        issues = []
        if server.get("auth") == "oauth":
            view = auth_view(server, self._warnings_free(config))
            if view.kind == "operator":
                store = await self._oauth.read_store(operator_store_key(name, config.url))
                state = auth_status(store)["state"]
                if state == "requires-authorization":
                    issues.append(
                        DoctorIssue(
                            "warning",
                            f"OAuth credentials require additional authorization; run openclaw mcp login {name}",
                        )
                    )
                elif state != "authorized":
                    issues.append(
                        DoctorIssue("warning", f"OAuth credentials are not authorized; run openclaw mcp login {name}")
                    )
            headers = server.get("headers")
            if isinstance(headers, dict) and any(k.lower() == "authorization" for k in headers):
                issues.append(DoctorIssue("warning", "OAuth is enabled and the static Authorization header is ignored"))
        if config.ssl_verify is False:
            issues.append(DoctorIssue("warning", "TLS certificate verification is disabled"))
        process_cwd = self._files.cwd()
        for label, value in (("client certificate", config.client_cert), ("client key", config.client_key)):
            if value is not None and not await self._files.is_regular_file(os.path.join(process_cwd, value)):
                issues.append(DoctorIssue("error", f"{label} file does not exist: {value}"))
        return issues

    @staticmethod
    def _warnings_free(config: HttpConfig) -> Any:
        from openclaw_mcp.domain.transport import Resolution

        return Resolution(config)
