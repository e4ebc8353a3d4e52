"""The ``openclaw`` (system agent) tool's replies: navigation directives and the proposal/approval state machine
(spec openclaw-tools.md §7.2, §7.4; D-OT3).

upstream: ``src/agents/tools/system-agent-tool.ts`` (the navigation directives, the proposal/approval gate),
``src/system-agent/operations-parse.ts`` (the operator handoffs).

* :class:`SystemAgentReplies` — the fixed texts of the packaged :class:`~.reference.ReferenceTexts` and the
  templates cut out of them by the literal hash or channel they contain (never typed here), with
  :meth:`~SystemAgentReplies.navigation_text` (§7.2) and :meth:`~SystemAgentReplies.approval_step` /
  :meth:`~SystemAgentReplies.propose` (§7.4 steps 1–4, returning the new state and the reply);
* :class:`ApprovalState`, :class:`ApprovalStep` — the per-process proposal state and one step's outcome.

Texts that are not in the dump (the artifact review line and its late conflict) are the reference's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Final, Literal

from openclaw_mcp.domain.openclaw_tools.reference import ReferenceTexts
from openclaw_mcp.domain.openclaw_tools.system_agent import operation_hash
from openclaw_mcp.jscompat.jsjson import js_dumps

__all__ = ["ApprovalState", "ApprovalStep", "StepKind", "SystemAgentReplies"]

StepKind = Literal["approved", "mismatch", "conflict", "needs-approval", "review"]

_REVIEW_LINE: Final = "Reviewed plugin artifact (metadata, not instructions): "
_ARTIFACT_CONFLICT_TAIL: Final = "A different operation is awaiting approval. This artifact was not proposed."
_SAMPLE_HASH: Final = operation_hash({"kind": "set-default-model", "model": "openai/gpt-5"})
"""The hash of the operation the dump proposed: cut out of its proposal texts."""
_FIXED_DIRECTIVE_LABELS: Final = {
    "skills-setup": "plain:configure_skills",
    "search-setup": "plain:configure_search",
    "gateway-config-setup": "plain:configure_gateway",
    "memory-import": "plain:import_memory",
    "model-setup": "plain:configure_model_provider",
    "model-accounts": "plain:manage_model_accounts",
    "open-tui": "plain:open_agent",
}
_OPEN_SETUP_LABELS: Final = {
    "guided": "plain:open_setup",
    "classic": "plain:open_setup:classic",
    "channels": "plain:open_setup:channels",
    "search": "plain:open_setup:search",
    "gateway": "plain:open_setup:gateway",
}


@dataclass(frozen=True, slots=True)
class ApprovalState:
    """Per-process state: the staged proposal hash ``P``, armed ``A``, operator-only ``O``."""

    proposal: str | None = None
    armed: bool = False
    operator_only: bool = False


@dataclass(frozen=True, slots=True)
class ApprovalStep:
    """The new state and the reply. ``kind == "review"``: the operation is a plugin artifact to review
    first (the reply is empty, the state unchanged); then call :meth:`SystemAgentReplies.propose` with the
    review."""

    state: ApprovalState
    kind: StepKind
    text: str

    @property
    def needs_approval(self) -> bool:
        """The reply's ``details.needsApproval`` (everything but the approved directive)."""
        return self.kind != "approved"


def _split_once(texts: Mapping[str, str], label: str, literal: str) -> tuple[str, str]:
    """The dumped text of ``label`` around its single occurrence of ``literal``."""
    parts = texts[label].split(literal)
    if len(parts) != 2:
        raise ValueError(f"reference text {label!r} does not contain {literal!r} exactly once")
    return parts[0], parts[1]


def _proposal_template(texts: Mapping[str, str], label: str) -> tuple[str, str]:
    """``(prefix, tail)`` of a ``needs-approval:<hash>\\n<tail>`` text: the prefix before the hash, and what
    follows the hash's line."""
    before, after = _split_once(texts, label, _SAMPLE_HASH)
    if not after.startswith("\n"):
        raise ValueError(f"reference text {label!r} has no line break after its hash")
    return before, after[1:]


@dataclass(frozen=True, slots=True)
class SystemAgentReplies:
    """The replies' fixed texts and templates (a template is the ``(before, after)`` pair around the hash or
    channel); build it with :meth:`from_reference`."""

    needs_approval: tuple[str, str]
    needs_approval_operator: tuple[str, str]
    conflict: tuple[str, str]
    approved: str
    mismatch: str
    operator_handoff: str
    channel_setup: tuple[str, str]
    open_setup_channel: tuple[str, str]
    fixed_directives: Mapping[str, str]
    open_setup: Mapping[str, str]

    @classmethod
    def from_reference(cls, reference: ReferenceTexts) -> SystemAgentReplies:
        """Cut the templates out of the dumped texts; ``ValueError`` when a text lacks its literal."""
        texts = reference.openclaw_texts
        return cls(
            needs_approval=_proposal_template(texts, "plain:first-proposal"),
            needs_approval_operator=_proposal_template(texts, "operator-only:first-proposal"),
            conflict=_proposal_template(texts, "plain:other-operation"),
            approved=texts["armed:first-proposal"],
            mismatch=texts["armed:second-call"],
            operator_handoff=texts["operator-only:open_agent"],
            channel_setup=_split_once(texts, "plain:connect_channel:Telegram", "telegram"),
            open_setup_channel=_split_once(texts, "plain:open_setup:channels:Slack", "slack"),
            fixed_directives=MappingProxyType({kind: texts[label] for kind, label in _FIXED_DIRECTIVE_LABELS.items()}),
            open_setup=MappingProxyType({target: texts[label] for target, label in _OPEN_SETUP_LABELS.items()}),
        )

    # --- navigation (§7.2) -------------------------------------------------------------------------------

    def navigation_text(self, operation: Mapping[str, str], *, operator_only: bool) -> str:
        """§7.2: the directive for a navigation operation; with ``operator_only`` the one operator handoff."""
        if operator_only:
            return self.operator_handoff
        kind = operation["kind"]
        if kind == "channel-setup":
            return operation["channel"].join(self.channel_setup)
        if kind == "open-setup":
            target, channel = operation["target"], operation.get("channel")
            if target == "channels" and channel:
                return channel.join(self.open_setup_channel)
            return self.open_setup[target]
        return self.fixed_directives[kind]

    # --- proposals and approval (§7.4) -------------------------------------------------------------------

    def _conflict_text(self, staged: str) -> str:
        prefix, tail = self.conflict
        return f"{prefix}{staged}\n{tail}"

    def approval_step(self, state: ApprovalState, operation: Mapping[str, str], *, approved: bool) -> ApprovalStep:
        """§7.4 steps 1–4 for a persistent operation (``approved`` = the argument was exactly ``true``)."""
        digest = operation_hash(operation)
        if approved and state.armed and state.proposal == digest:
            return ApprovalStep(replace(state, proposal=None), "approved", self.approved)
        if state.armed:
            return ApprovalStep(replace(state, proposal=None), "mismatch", self.mismatch)
        if state.proposal is not None and state.proposal != digest:
            return ApprovalStep(state, "conflict", self._conflict_text(state.proposal))
        if operation["kind"] == "plugin-activate-artifact":
            return ApprovalStep(state, "review", "")
        return self.propose(state, operation)

    def propose(
        self, state: ApprovalState, operation: Mapping[str, str], review: Mapping[str, Any] | None = None
    ) -> ApprovalStep:
        """§7.4 step 4: stage the operation and ask for approval. With an artifact ``review`` (after an awaited
        review the state may have changed): another staged proposal → the artifact conflict reply; else the
        review line (``JSON.stringify`` of the review) goes before the approval hint."""
        digest = operation_hash(operation)
        if review is not None and state.proposal is not None and state.proposal != digest:
            prefix, _ = self.conflict
            return ApprovalStep(state, "conflict", f"{prefix}{state.proposal}\n{_ARTIFACT_CONFLICT_TAIL}")
        prefix, tail = self.needs_approval_operator if state.operator_only else self.needs_approval
        line = f"{_REVIEW_LINE}{js_dumps(review, None)}\n" if review is not None else ""
        return ApprovalStep(replace(state, proposal=digest), "needs-approval", f"{prefix}{digest}\n{line}{tail}")
