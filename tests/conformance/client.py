"""The client the official MCP conformance suite drives (``@modelcontextprotocol/conformance client``).

    npx @modelcontextprotocol/conformance client --suite core \\
        --command ".venv/bin/python -m tests.conformance.client"

The suite starts a test server per scenario and runs this program with the server URL as the last
argument, the scenario name in ``MCP_CONFORMANCE_SCENARIO`` and, for some auth scenarios, a JSON object in
``MCP_CONFORMANCE_CONTEXT`` (pre-registered ``client_id`` / ``client_secret``). The suite judges the
client by what its test server saw; this program only has to behave and exit (0 on success, 1 with one
line on stderr otherwise).

Everything goes through the project's real client path: a one-server ``SessionRuntime``
(``application.runtime``) over the library API's connector (``entrypoints.runtime_api.TransportConnector``
over the container's ``adapters.http.HttpMcpConnector``) lists the tools (the catalog) and calls them as the
model-facing tools of ``entrypoints.runtime_api`` do. The config is the one a user would write:
``{"url": <server-url>, "transport": "streamable-http"}``, plus ``"auth": "oauth"`` and
``"oauth": {"clientMetadataUrl": ...}`` for ``auth/*`` scenarios.

The same program runs the 2026-07-28 scenarios (``scripts/conformance.sh modern``, ``--spec-version
2026-07-28``): the runtime reaches their servers through its own era fallback; the plans only add the calls
those scenarios observe (:data:`_PLANS`, and the context's ``toolCalls`` for ``http-custom-headers``).

What the runtime does not do by itself, added here:

- elicitation (scenario ``elicitation-sep1034-client-defaults``): the runtime refuses server requests
  unless the host gives a handler; this client's handler (:func:`answer_elicitation`, passed to the
  ``TransportConnector``) accepts with the schema's defaults (:func:`accept_with_defaults`);
- the user's part of OAuth (``auth/*``): the runtime authenticates with the project's OAuth provider
  (``entrypoints.oauth``) and, when the server wants (more) authorization, fails with ``Run openclaw mcp
  login``; this client then logs in as that command does, with the browser automated
  (:class:`ConformanceOAuth`, made by :func:`oauth_provider`), and runs the session again.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2

from openclaw_mcp.application.ports.mcp import McpError
from openclaw_mcp.application.runtime import McpRuntimeError, RuntimeServices, SessionConfig, SessionRuntime
from openclaw_mcp.application.runtime.tool_gate import ToolGate, ToolGateSettings
from openclaw_mcp.domain.toolnames import build_tools_from_catalog
from openclaw_mcp.domain.transport import HttpConfig
from openclaw_mcp.entrypoints.containers import create_container
from openclaw_mcp.entrypoints.runtime_api import McpTool, TransportConnector, runtime_container
from openclaw_mcp.entrypoints.settings import Settings

__all__ = [
    "CLIENT_METADATA_URL",
    "CONTEXT_ENV",
    "LOGIN_HINT",
    "MAX_LOGINS",
    "SCENARIO_ENV",
    "SERVER_NAME",
    "CatalogFailed",
    "ConformanceOAuth",
    "ScenarioPlan",
    "accept_with_defaults",
    "answer_elicitation",
    "context_calls",
    "main",
    "needs_login",
    "oauth_provider",
    "plan_for",
    "run_scenario",
    "server_definition",
]

SCENARIO_ENV: Final = "MCP_CONFORMANCE_SCENARIO"
CONTEXT_ENV: Final = "MCP_CONFORMANCE_CONTEXT"
SERVER_NAME: Final = "conformance"
# The suite kills a client after 30 s; finish (or fail with a message) well before that.
SCENARIO_DEADLINE_S: Final = 25.0
CLIENT_METADATA_URL: Final = "https://conformance-test.local/client-metadata.json"
"""The ``oauth.clientMetadataUrl`` configured for auth scenarios (the URL the suite's CIMD scenario expects)."""

# --- what each scenario asks of the client -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScenarioPlan:
    """What to do once connected: list the tools, then call ``call`` (MCP tool names) with ``arguments``.

    ``call_first_tool``: call the first listed tool with ``{}`` (auth scenarios: any authorized request
    after the handshake will do, and a ``tools/call`` is what step-up scenarios challenge).
    ``oauth``: connect with ``auth: "oauth"``.
    ``call_all_tools``: call every tool the catalog kept, with ``arguments`` (``http-invalid-tool-headers``: the
    runtime must have dropped the tools with an invalid ``x-mcp-header``, so only the valid one is called).
    ``context_calls``: then make the calls the scenario context lists (``toolCalls``: ``name``, ``arguments``).
    ``echo_schema``: ``(echo tool, tool)``: then call the echo tool with ``{"schema": <the input schema the
    runtime holds for tool>}`` (``json-schema-2020-12-preservation`` compares it with what the server sent).
    """

    call: tuple[str, ...] = ()
    arguments: Mapping[str, Any] = field(default_factory=dict)
    call_first_tool: bool = False
    oauth: bool = False
    call_all_tools: bool = False
    context_calls: bool = False
    echo_schema: tuple[str, str] | None = None


_PLANS: Final[dict[str, ScenarioPlan]] = {
    "initialize": ScenarioPlan(),
    "tools_call": ScenarioPlan(call=("add_numbers",), arguments={"a": 5, "b": 3}),
    "elicitation-sep1034-client-defaults": ScenarioPlan(call=("test_client_elicitation_defaults",)),
    "sse-retry": ScenarioPlan(call=("test_reconnection",)),
    # 2026-07-28 scenarios (scripts/conformance.sh modern; the others there only connect and list, or are auth/*)
    "sep-2322-client-request-state": ScenarioPlan(
        call=("test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type")
    ),
    "http-standard-headers": ScenarioPlan(call=("test_headers",)),
    "http-custom-headers": ScenarioPlan(context_calls=True),
    "http-invalid-tool-headers": ScenarioPlan(call_all_tools=True, arguments={"region": "us-west1"}),
    "json-schema-2020-12-preservation": ScenarioPlan(echo_schema=("json_schema_echo", "json_schema_2020_12_tool")),
}


def plan_for(scenario: str | None) -> ScenarioPlan:
    """The plan of a scenario; unknown ``auth/*`` scenarios use the authorization-code plan, any other
    unknown scenario (or none) just connects and lists the tools."""
    if scenario is None:
        return ScenarioPlan()
    plan = _PLANS.get(scenario)
    if plan is not None:
        return plan
    if scenario.startswith("auth/"):
        return ScenarioPlan(call_first_tool=True, oauth=True)
    return ScenarioPlan()


def server_definition(server_url: str, *, oauth: bool) -> dict[str, Any]:
    """The ``mcp.servers`` entry a user would configure for the test server."""
    definition: dict[str, Any] = {"url": server_url, "transport": "streamable-http"}
    if oauth:
        definition["auth"] = "oauth"
        definition["oauth"] = {"clientMetadataUrl": CLIENT_METADATA_URL}
    return definition


# --- elicitation ---------------------------------------------------------------------------------------------


def accept_with_defaults(requested_schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The ``elicitation/create`` answer of an agent that accepts what it is offered (SEP-1034): ``accept``
    with every property that declares a ``default`` set to it."""
    content: dict[str, Any] = {}
    properties = (requested_schema or {}).get("properties")
    if isinstance(properties, Mapping):
        for name, schema in properties.items():
            if isinstance(schema, Mapping) and "default" in schema:
                content[str(name)] = schema["default"]
    return {"action": "accept", "content": content}


async def answer_elicitation(_server_name: str, params: dict[str, Any]) -> dict[str, Any]:
    """The runtime's elicitation handler: form requests get :func:`accept_with_defaults`."""
    if params.get("mode", "form") != "form":
        raise ValueError("URL elicitation is not supported")
    return accept_with_defaults(params.get("requestedSchema"))


# --- OAuth seam ----------------------------------------------------------------------------------------------

MAX_LOGINS: Final = 3
"""Logins per run: the first one, then at most two step-ups (the suite allows three authorization requests)."""
LOGIN_HINT: Final = "openclaw mcp login"
"""What the runtime's OAuth errors tell the user to run (``requires (additional) OAuth authorization``)."""

ConnectorHook = Callable[[str, HttpConfig], Any]


class ConformanceOAuth:
    """The project's OAuth provider for the conformance run, the user's part automated.

    It is what a user of ``openclaw mcp`` does, in one process, over a throw-away state database (SQLite
    credential store and leases in ``state_dir``):

    - the runtime's HTTP connector authenticates ``auth: "oauth"`` requests with :attr:`connector_hook`
      (``entrypoints.oauth.request_auth``: stored token, refresh, and on ``401`` / ``403
      insufficient_scope`` the challenge recorded and the request failed with ``Run openclaw mcp login``);
    - :meth:`login` is ``openclaw mcp login``: ``McpOAuth.login_start`` (which uses the recorded challenge:
      resource metadata URL, scope), the browser, ``McpOAuth.login_complete``.

    The browser step: the authorization URL is fetched and the code read from the redirect's ``Location``
    (the suite's authorization server approves at once), its ``state`` checked; nothing listens on the
    redirect URL.

    A pre-registered client (scenario context ``client_id`` / ``client_secret``) is stored as the
    credential store's client information before the first login, as a completed registration would be.
    """

    def __init__(self, server_url: str, context: Mapping[str, Any], state_dir: str) -> None:
        from openclaw_mcp.entrypoints.oauth import oauth_server

        db_path = os.path.join(state_dir, "state.sqlite")
        self._container = create_container(replace(Settings.from_environ(), state_db_path=db_path))
        self._oauth = self._container.mcp_oauth()
        # The suite's authorization servers listen on other loopback ports: the SSRF rule for origins other
        # than the server's is lifted here (only here; ``openclaw mcp`` keeps it).
        self._protocol = self._container.oauth_protocol(url=server_url, block_private_origins=False)
        self.server = oauth_server(SERVER_NAME, server_url, client_metadata_url=CLIENT_METADATA_URL)
        self._context = dict(context)
        self._http = httpx2.AsyncClient(timeout=httpx2.Timeout(10.0), follow_redirects=False, trust_env=False)
        self.logins = 0

    async def __aenter__(self) -> ConformanceOAuth:
        await self._seed_preregistered_client()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        with anyio.CancelScope(shield=True):
            await self._http.aclose()
            await self._protocol.aclose()

    def connector_hook(self, name: str, config: HttpConfig) -> Any:
        """``HttpMcpConnector(oauth=…)``: the request authenticator of one connection."""
        from openclaw_mcp.entrypoints.oauth import server_of

        return self._container.request_auth(server=server_of(name, config), config=config, block_private_origins=False)

    async def _seed_preregistered_client(self) -> None:
        client_id = self._context.get("client_id")
        if not isinstance(client_id, str) or not client_id:
            return
        from openclaw_mcp.application.ports.leases import MCP_OAUTH_LEASE
        from openclaw_mcp.application.ports.oauth import DEFAULT_REDIRECT_URL
        from openclaw_mcp.domain import oauth_store as mutations

        secret = self._context.get("client_secret")
        information: dict[str, Any] = {
            "redirect_uris": [DEFAULT_REDIRECT_URL],
            "token_endpoint_auth_method": "client_secret_basic" if isinstance(secret, str) and secret else "none",
            "client_id": client_id,
        }
        if isinstance(secret, str) and secret:
            information["client_secret"] = secret
        leases = self._container.lease_store()
        store = self._container.oauth_credentials()
        policy, key = MCP_OAUTH_LEASE, self.server.store_key
        async with leases.hold(
            policy.scope, key, duration_ms=policy.duration_ms, wait_ms=policy.wait_ms, label=policy.label
        ) as lease:
            await store.update(lease, key, lambda current: mutations.set_client_information(current, information))

    async def login(self) -> None:
        """``openclaw mcp login`` with the browser automated (at most :data:`MAX_LOGINS` per run)."""
        from openclaw_mcp.application.oauth import LoginRedirect
        from openclaw_mcp.application.ports.oauth import OAuthFlowError

        if self.logins >= MAX_LOGINS:
            raise McpError(f"authorization still refused after {MAX_LOGINS} logins")
        self.logins += 1
        try:
            start = await self._oauth.login_start(self.server, self._protocol)
            if isinstance(start, LoginRedirect):
                code = await self._browse(start.authorization_url, start.state)
                await self._oauth.login_complete(self.server, self._protocol, code)
        except OAuthFlowError as exc:
            raise McpError(f"login failed: {exc}") from None

    async def _browse(self, authorization_url: str, state: str) -> str:
        """The automated browser: the authorization server's redirect to the callback carries the code."""
        try:
            response = await self._http.get(authorization_url)
        except httpx2.HTTPError as exc:
            raise McpError(f"authorization request failed: {type(exc).__name__}") from None
        location = response.headers.get("location")
        if response.status_code not in (301, 302, 303, 307, 308) or not location:
            raise McpError(f"authorization endpoint answered {response.status_code} without a redirect")
        query = parse_qs(urlsplit(location).query)
        if query.get("state", [None])[0] != state:
            raise McpError("authorization redirect carries the wrong state")
        code = query.get("code", [None])[0]
        if not code:
            raise McpError(f"authorization refused: {query.get('error', ['no code'])[0]}")
        return code


def oauth_provider(server_url: str, context: Mapping[str, Any], state_dir: str) -> ConformanceOAuth:
    """The seam to the OAuth provider: an (unentered) :class:`ConformanceOAuth` for ``server_url`` whose
    ``connector_hook`` the HTTP connector authenticates with and whose ``login`` the driver runs when the
    runtime says ``Run openclaw mcp login``. ``context`` is the scenario context (pre-registered client)."""
    return ConformanceOAuth(server_url, context, state_dir)


def needs_login(error: BaseException) -> bool:
    """Whether a failed session asks the user to log in (``requires (additional) OAuth authorization``)."""
    return LOGIN_HINT in str(error)


# --- running a scenario ---------------------------------------------------------------------------------------


def context_calls(context: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The ``toolCalls`` of a scenario context as ``(name, arguments)`` pairs."""
    calls: list[tuple[str, Mapping[str, Any]]] = []
    listed = context.get("toolCalls")
    for entry in listed if isinstance(listed, list) else ():
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise ValueError(f"{CONTEXT_ENV}: a toolCalls entry without a name")
        arguments = entry.get("arguments")
        calls.append((entry["name"], arguments if isinstance(arguments, Mapping) else {}))
    return calls


async def _run_plan(
    server_url: str,
    plan: ScenarioPlan,
    *,
    oauth: ConnectorHook,
    log: Callable[[str], None],
    context: Mapping[str, Any] | None = None,
) -> None:
    """One session: connect through the runtime, list the tools (the catalog), make the plan's calls."""
    container = runtime_container(oauth=oauth, elicitation=answer_elicitation)
    collator = container.collator()
    services = RuntimeServices(
        connector=TransportConnector(container.stdio_connector, container.http_connector),
        clock=container.clock(),
        warn=lambda text: log(f"[bundle-mcp] {text}"),
        debug=log,
    )
    servers = {SERVER_NAME: server_definition(server_url, oauth=plan.oauth)}
    async with SessionRuntime(
        SessionConfig(session_id="conformance", servers=servers), services, collator=collator
    ) as runtime:
        catalog = await runtime.get_catalog()
        for diagnostic in catalog.diagnostics or ():
            # The runtime keeps going without a server whose catalog failed; a conformance run cannot.
            raise CatalogFailed(diagnostic.message)
        built = build_tools_from_catalog(catalog, collator.key)
        gate = ToolGate(ToolGateSettings(), warn=log)  # no policy, no hooks: the conformance run calls every tool
        tools = {
            spec.tool_name: McpTool(spec, runtime, collator.key, gate)
            for spec in built.tools
            if spec.executable and spec.operation == "tool"
        }
        log(f"conformance: listed {len(tools)} tool(s): {', '.join(tools)}")
        names: Sequence[str] = plan.call
        if plan.call_first_tool and tools:
            names = (next(iter(tools)),)
        elif plan.call_all_tools:
            names = tuple(tools)
        calls: list[tuple[str, Mapping[str, Any]]] = [(name, plan.arguments) for name in names]
        if plan.context_calls:
            calls += context_calls(context or {})
        if plan.echo_schema is not None:
            echo, source = plan.echo_schema
            if source not in tools:
                raise LookupError(f'the server lists no tool "{source}"')
            calls.append((echo, {"schema": tools[source].parameters}))
        for name, arguments in calls:
            tool = tools.get(name)
            if tool is None:
                raise LookupError(f'the server lists no tool "{name}"')
            result = await tool.execute(dict(arguments))
            log(f"conformance: {name} -> {'error' if result.details.get('isError') else 'ok'}")


class CatalogFailed(McpError):
    """The server's tool catalog could not be built (the runtime's diagnostic message)."""


async def run_scenario(
    server_url: str,
    scenario: str | None,
    context: Mapping[str, Any],
    *,
    log: Callable[[str], None],
) -> None:
    """Connect to ``server_url`` through the session runtime, list the tools and make the scenario's calls.

    Auth scenarios: when a session fails because the server wants (more) authorization, the user's answer
    follows — a login (:meth:`ConformanceOAuth.login`) — and the session runs again, with at most
    :data:`MAX_LOGINS` logins. Raises ``McpError`` / ``McpRuntimeError`` for protocol failures and
    ``LookupError`` when a tool the scenario needs is not listed."""
    plan = plan_for(scenario)
    with tempfile.TemporaryDirectory(prefix="openclaw-conformance-") as state_dir:
        async with oauth_provider(server_url, context, state_dir) as auth:
            while True:
                try:
                    await _run_plan(server_url, plan, oauth=auth.connector_hook, log=log, context=context)
                    return
                except (McpError, McpRuntimeError) as exc:
                    if not (plan.oauth and needs_login(exc)):
                        raise
                    log(f"conformance: {str(exc).splitlines()[0]}; logging in")
                    await auth.login()


def _read_context(environ: Mapping[str, str]) -> dict[str, Any]:
    raw = environ.get(CONTEXT_ENV)
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        raise ValueError(f"{CONTEXT_ENV} is not valid JSON") from None
    if not isinstance(value, dict):
        raise ValueError(f"{CONTEXT_ENV} is not a JSON object")
    return value


def _report(scenario: str | None, text: str) -> None:
    line = text.splitlines()[0] if text else "failed"
    print(f"conformance client ({scenario or 'no scenario'}): {line}", file=sys.stderr)


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """``python -m tests.conformance.client <server-url>``: 0 when the scenario ran, 1 (one line on
    stderr) when it failed, 2 for a usage error."""
    args = list(sys.argv[1:] if argv is None else argv)
    env = os.environ if environ is None else environ
    if not args:
        print("usage: python -m tests.conformance.client <server-url>", file=sys.stderr)
        return 2
    server_url = args[-1]
    scenario = env.get(SCENARIO_ENV) or None
    verbose = bool(env.get("CONFORMANCE_CLIENT_DEBUG"))

    def log(text: str) -> None:
        if verbose:
            print(text, file=sys.stderr)

    try:
        context = _read_context(env)

        async def run() -> None:
            with anyio.fail_after(SCENARIO_DEADLINE_S):
                await run_scenario(server_url, scenario, context, log=log)

        anyio.run(run)
    except (McpError, McpRuntimeError, LookupError, ValueError, TimeoutError) as exc:
        _report(scenario, str(exc) or type(exc).__name__)
        return 1
    except Exception as exc:  # anything else still ends in one line, never a traceback
        _report(scenario, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
