"""Conversations, messages and attachments as the bridge projects them from Gateway data.

Spec serve-bridge §0.4 (normalisation functions), §5.0.2 (conversation descriptor), §5.1–§5.4 and §5.7
(tool arguments → Gateway requests, answers → results), §9 (message lookup, attachment extraction).
upstream: ``channel-shared.ts`` (``toConversation``, ``resolveMessageId``, ``extractAttachmentsFromMessage``),
``channel-bridge.ts`` (``listConversations`` … ``sendMessage``), ``media-facts`` (``normalizeMediaFact``,
``isMeaningfulMediaFact``).

JSON data is plain Python data (``dict`` in received key order, ``list``, ``str``, ``int``, ``float``,
``bool``, ``None``). ``None`` stands for JSON ``null``; a key that JavaScript would leave ``undefined`` is
*omitted* from the JSON this module builds. Where a value may be either, the :data:`~jscompat.undefined.UNDEFINED`
sentinel marks "undefined".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeGuard

from openclaw_mcp.jscompat.jsjson import JsonValue, js_to_string, js_truthy
from openclaw_mcp.jscompat.numbers import is_safe_integer
from openclaw_mcp.jscompat.text import js_trim, js_trim_or_none
from openclaw_mcp.jscompat.undefined import UNDEFINED

__all__ = [
    "EXACT_MESSAGE_LOOKUP_METHOD",
    "AttachmentsFetchArgs",
    "Conversation",
    "ConversationArgs",
    "ConversationsListArgs",
    "GatewayCall",
    "MessagesReadArgs",
    "MessagesSendArgs",
    "conversation_from_describe",
    "conversations_from_list",
    "describe_params",
    "extract_attachments",
    "find_message",
    "int_option",
    "is_meaningful_media_fact",
    "lower_or_empty",
    "media_kind_from_mime",
    "message_from_lookup",
    "message_id_of",
    "messages_from_response",
    "normalize_media_fact",
    "normalize_mime_type",
    "normalize_session_key",
    "opt_lower",
    "opt_str",
    "send_params",
    "to_conversation",
]


GatewayCall = tuple[str, dict[str, Any]]
"""A Gateway request a tool sends: method and params."""

EXACT_MESSAGE_LOOKUP_METHOD: Final = "chat.message.get"
"""The exact message lookup of newer Gateways (listed in ``hello-ok`` ``features.methods``)."""


# --- §0.4 normalisation functions ----------------------------------------------------------------------


opt_str = js_trim_or_none
"""``normalizeOptionalString``: a string trimmed, ``None`` (UNDEFINED) when blank or not a string."""


def opt_lower(value: object) -> str | None:
    """``normalizeOptionalLowercaseString``: :func:`opt_str` lower-cased."""
    text = opt_str(value)
    return None if text is None else text.lower()


def lower_or_empty(value: object) -> str:
    """``normalizeLowercaseStringOrEmpty``: :func:`opt_lower` or ``""``."""
    return opt_lower(value) or ""


def _is_number(value: object) -> TypeGuard[int | float]:
    """``typeof value === "number"`` for JSON data (``bool`` is not a number)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def int_option(value: object, fallback: int, lo: int, hi: int) -> int:
    """``resolveIntegerOption``: a finite number (else ``fallback``), floored, clamped to ``[lo, hi]``."""
    chosen = value if _is_number(value) and math.isfinite(value) else fallback
    return min(hi, max(lo, math.floor(chosen)))


def _field(value: object, key: str) -> Any:
    """``value?.[key]`` for JSON data: UNDEFINED unless ``value`` is an object that has ``key``."""
    if isinstance(value, dict):
        return value.get(key, UNDEFINED)
    return UNDEFINED


def _nullish(value: object) -> bool:
    return value is None or value is UNDEFINED


# --- §5.0.2 conversation descriptor --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Conversation:
    """A reply-capable conversation: a Gateway session row that has a channel and a ``to`` (§5.0.2).

    ``session_key`` is the row's ``key`` as received (any JSON value, or UNDEFINED); ``thread_id`` is the raw
    thread id (string, number, ``None`` for a present ``null``, or UNDEFINED); the optional strings are ``None``
    when UNDEFINED.
    """

    session_key: JsonValue
    channel: str
    to: str
    account_id: str | None = None
    thread_id: JsonValue = UNDEFINED
    label: str | None = None
    display_name: str | None = None
    derived_title: str | None = None
    last_message_preview: str | None = None
    updated_at: int | float | None = None

    @property
    def thread_id_text(self) -> str | None:
        """``String(threadId)``, or ``None`` when the thread id is null/UNDEFINED (what ``send`` carries)."""
        return None if _nullish(self.thread_id) else js_to_string(self.thread_id)

    def to_json(self) -> dict[str, Any]:
        """The descriptor object, keys in spec order, UNDEFINED keys omitted."""
        out: dict[str, Any] = {}
        if self.session_key is not UNDEFINED:
            out["sessionKey"] = self.session_key
        out["channel"] = self.channel
        out["to"] = self.to
        if self.account_id is not None:
            out["accountId"] = self.account_id
        if self.thread_id is not UNDEFINED:
            out["threadId"] = self.thread_id
        titles = (
            ("label", self.label),
            ("displayName", self.display_name),
            ("derivedTitle", self.derived_title),
            ("lastMessagePreview", self.last_message_preview),
        )
        out.update((key, value) for key, value in titles if value is not None)
        out["updatedAt"] = self.updated_at
        return out


def to_conversation(row: object) -> Conversation | None:
    """``toConversation``: the descriptor of a Gateway session row, ``None`` when it has no channel or ``to``.

    A row that is not a JSON object is not a conversation.
    """
    if not isinstance(row, dict):
        return None
    delivery = row.get("deliveryContext", UNDEFINED)
    origin = row.get("origin", UNDEFINED)
    channel_raw = (
        opt_str(_field(delivery, "channel"))
        or opt_str(row.get("lastChannel"))
        or opt_str(row.get("channel"))
        or opt_str(_field(origin, "provider"))
    )
    channel = opt_lower(channel_raw)
    to = opt_str(_field(delivery, "to")) or opt_str(row.get("lastTo"))
    if channel is None or to is None:
        return None
    thread_id = _field(delivery, "threadId")
    if _nullish(thread_id):
        thread_id = row.get("lastThreadId", UNDEFINED)
    if _nullish(thread_id):
        thread_id = _field(origin, "threadId")
    updated_at = row.get("updatedAt")
    return Conversation(
        session_key=row.get("key", UNDEFINED),
        channel=channel,
        to=to,
        account_id=(
            opt_str(_field(delivery, "accountId"))
            or opt_str(row.get("lastAccountId"))
            or opt_str(_field(origin, "accountId"))
        ),
        thread_id=thread_id,
        label=opt_str(row.get("label")),
        display_name=opt_str(row.get("displayName")),
        derived_title=opt_str(row.get("derivedTitle")),
        last_message_preview=opt_str(row.get("lastMessagePreview")),
        updated_at=updated_at if _is_number(updated_at) else None,
    )


# --- §5.1 conversations_list ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConversationsListArgs:
    """Normalised ``conversations_list`` arguments (§5.1); ``channel``: the lower-cased filter or ``None``."""

    limit: int = 50
    search: str | None = None
    channel: str | None = None
    include_derived_titles: bool = True
    include_last_message: bool = True

    @classmethod
    def from_arguments(cls, args: Mapping[str, object]) -> ConversationsListArgs:
        """From validated tool arguments (unknown keys ignored, defaults applied)."""
        search = args.get("search")
        derived = args.get("includeDerivedTitles")
        last = args.get("includeLastMessage")
        return cls(
            limit=int_option(args.get("limit"), 50, 1, 500),
            search=search if isinstance(search, str) else None,
            channel=opt_lower(args.get("channel")),
            include_derived_titles=derived if isinstance(derived, bool) else True,
            include_last_message=last if isinstance(last, bool) else True,
        )

    def gateway_request(self) -> GatewayCall:
        """``sessions.list`` with :meth:`request_params`."""
        return "sessions.list", self.request_params()

    def request_params(self) -> dict[str, Any]:
        """``sessions.list`` params: ``limit``, ``search`` (only when given, untrimmed), the two flags."""
        params: dict[str, Any] = {"limit": self.limit}
        if self.search is not None:
            params["search"] = self.search
        params["includeDerivedTitles"] = self.include_derived_titles
        params["includeLastMessage"] = self.include_last_message
        return params


def conversations_from_list(response: object, channel: str | None = None) -> list[Conversation]:
    """The conversations of a ``sessions.list`` answer, in Gateway order, filtered by ``opt_lower(channel)``.

    Rows that are not conversations are dropped; a missing (or non-array) ``sessions`` is ``[]``.
    """
    rows = _field(response, "sessions")
    if not isinstance(rows, list):
        return []
    wanted = opt_lower(channel)
    out: list[Conversation] = []
    for row in rows:
        conversation = to_conversation(row)
        if conversation is None:
            continue
        if wanted and lower_or_empty(conversation.channel) != wanted:
            continue
        out.append(conversation)
    return out


# --- §5.2 / §5.7 conversation_get, messages_send -------------------------------------------------------


def normalize_session_key(session_key: str) -> str | None:
    """The ``js_trim``-med key to describe, or ``None`` when blank (answer "not found" without a request)."""
    return js_trim(session_key) or None


def describe_params(key: str) -> dict[str, Any]:
    """``sessions.describe`` params for an already trimmed key."""
    return {"key": key, "includeDerivedTitles": True, "includeLastMessage": True}


@dataclass(frozen=True, slots=True)
class ConversationArgs:
    """``conversation_get`` arguments (§5.2): the key as given and its trimmed form (``None`` when blank: the
    tool answers "not found" without a request)."""

    session_key: str
    key: str | None

    @classmethod
    def from_arguments(cls, args: Mapping[str, object]) -> ConversationArgs:
        session_key = str(args["session_key"])
        return cls(session_key, normalize_session_key(session_key))

    def gateway_request(self) -> GatewayCall | None:
        """``sessions.describe`` of the trimmed key; ``None`` for a blank key."""
        return None if self.key is None else ("sessions.describe", describe_params(self.key))


@dataclass(frozen=True, slots=True)
class MessagesSendArgs:
    """``messages_send`` arguments (§5.7): the conversation to describe first, the text verbatim."""

    conversation: ConversationArgs
    text: str

    @classmethod
    def from_arguments(cls, args: Mapping[str, object]) -> MessagesSendArgs:
        return cls(ConversationArgs.from_arguments(args), str(args["text"]))

    def gateway_request(self) -> GatewayCall | None:
        return self.conversation.gateway_request()


def conversation_from_describe(response: object) -> Conversation | None:
    """The conversation of a ``sessions.describe`` answer (``{"session": row | null}``), else ``None``."""
    session = _field(response, "session")
    return to_conversation(session) if js_truthy(session) else None


def send_params(conversation: Conversation, text: str, idempotency_key: str) -> dict[str, Any]:
    """``send`` params (§5.7): route of ``conversation``, ``text`` verbatim, the caller's UUIDv4 key.

    ``accountId`` is omitted when UNDEFINED, ``threadId`` when null/UNDEFINED (else stringified).
    """
    params: dict[str, Any] = {"to": conversation.to, "channel": conversation.channel}
    if conversation.account_id is not None:
        params["accountId"] = conversation.account_id
    thread = conversation.thread_id_text
    if thread is not None:
        params["threadId"] = thread
    params["message"] = text
    if conversation.session_key is not UNDEFINED:
        params["sessionKey"] = conversation.session_key
    params["idempotencyKey"] = idempotency_key
    return params


# --- §5.3 messages_read --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MessagesReadArgs:
    """Normalised ``messages_read`` arguments (§5.3); ``session_key`` is passed as given (not trimmed)."""

    session_key: str
    limit: int = 20

    @classmethod
    def from_arguments(cls, args: Mapping[str, object]) -> MessagesReadArgs:
        session_key = args.get("session_key")
        return cls(
            session_key=session_key if isinstance(session_key, str) else "",
            limit=int_option(args.get("limit"), 20, 1, 200),
        )

    def gateway_request(self) -> GatewayCall:
        """``sessions.get`` with :meth:`request_params`."""
        return "sessions.get", self.request_params()

    def request_params(self) -> dict[str, Any]:
        """``sessions.get`` params."""
        return {"key": self.session_key, "limit": self.limit}


def messages_from_response(response: object) -> list[Any]:
    """The raw transcript messages of a ``sessions.get`` answer, verbatim; missing (or non-array) → ``[]``."""
    messages = _field(response, "messages")
    return messages if isinstance(messages, list) else []


# --- §5.4 / §9 attachments_fetch -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AttachmentsFetchArgs:
    """Normalised ``attachments_fetch`` arguments (§5.4, §9.1); both strings as given.

    ``legacy_limit`` is only used by the legacy lookup (Gateway without ``chat.message.get``).
    """

    session_key: str
    message_id: str
    legacy_limit: int = 100

    @classmethod
    def from_arguments(cls, args: Mapping[str, object]) -> AttachmentsFetchArgs:
        session_key = args.get("session_key")
        message_id = args.get("message_id")
        limit = args.get("limit")
        return cls(
            session_key=session_key if isinstance(session_key, str) else "",
            message_id=message_id if isinstance(message_id, str) else "",
            legacy_limit=int_option(100 if limit is None else limit, 20, 1, 200),
        )

    def gateway_request(self, exact_lookup: bool) -> GatewayCall:
        """``chat.message.get`` (:data:`EXACT_MESSAGE_LOOKUP_METHOD`) when the Gateway offers it, else the
        legacy ``sessions.get``."""
        if exact_lookup:
            return EXACT_MESSAGE_LOOKUP_METHOD, self.exact_params()
        return "sessions.get", self.legacy_params()

    def exact_params(self) -> dict[str, Any]:
        """``chat.message.get`` params (the exact path; ``limit`` ignored)."""
        return {"sessionKey": self.session_key, "messageId": self.message_id}

    def legacy_params(self) -> dict[str, Any]:
        """``sessions.get`` params for the legacy path."""
        return {"key": self.session_key, "limit": self.legacy_limit}


def message_from_lookup(response: object) -> JsonValue | None:
    """The message of a ``chat.message.get`` answer: ``message`` when ``ok`` is ``true``, else ``None``."""
    if _field(response, "ok") is not True:
        return None
    message = _field(response, "message")
    return message if js_truthy(message) else None


def message_id_of(entry: object) -> str | None:
    """``resolveMessageId``: ``opt_str(entry.id)``, else ``opt_str(entry.__openclaw.id)``."""
    if not isinstance(entry, dict):
        return None
    direct = opt_str(entry.get("id"))
    if direct is not None:
        return direct
    meta = entry.get("__openclaw")
    return opt_str(meta.get("id")) if isinstance(meta, dict) else None


def find_message(messages: Sequence[object], message_id: str) -> JsonValue | None:
    """The legacy lookup: the first message whose id equals ``message_id`` exactly, else ``None``."""
    for entry in messages:
        if message_id_of(entry) == message_id:
            return entry
    return None


_MIME_SYNONYMS: Final[Mapping[str, str]] = {
    "image/apng": "image/png",
    "text/yaml": "application/yaml",
    "application/x-yaml": "application/yaml",
    "application/xml": "text/xml",
    "video/vnd.avi": "video/x-msvideo",
    "video/matroska": "video/x-matroska",
}

_GENERIC_BINARY: Final = frozenset({"application/octet-stream", "binary/octet-stream"})


def normalize_mime_type(mime: str | None) -> str | None:
    """``normalizeMimeType``: the part before ``;``, trimmed, lower-cased, synonyms folded."""
    if not mime:
        return None
    cleaned = js_trim(mime.split(";", 1)[0]).lower()
    if not cleaned:
        return None
    return _MIME_SYNONYMS.get(cleaned, cleaned)


def media_kind_from_mime(mime: str | None) -> str | None:
    """``kindFromMime``: ``image``/``audio``/``video``/``document`` family of a MIME type, else ``None``."""
    normalized = normalize_mime_type(mime)
    if not normalized:
        return None
    for prefix in ("image", "audio", "video"):
        if normalized.startswith(prefix + "/"):
            return prefix
    if normalized.startswith(("text/", "application/")):
        return "document"
    return None


def _positive_safe_integer(value: object) -> int | None:
    if not is_safe_integer(value):
        return None
    return int(value) if value > 0 else None


def normalize_media_fact(entry: object) -> dict[str, Any]:
    """``normalizeMediaFact`` of one ``__openclaw.media`` entry, UNDEFINED keys removed (§9.2 table order).

    A non-object entry normalises to ``{"transcribed": false}``.
    """
    source: Mapping[str, Any] = entry if isinstance(entry, dict) else {}
    content_type = opt_str(source.get("contentType"))
    kind = source.get("kind", UNDEFINED)
    if _nullish(kind):
        generic = normalize_mime_type(content_type) in _GENERIC_BINARY
        kind = UNDEFINED if generic else (media_kind_from_mime(content_type) or UNDEFINED)
    size = source.get("sizeBytes")
    fact: dict[str, Any] = {
        "path": opt_str(source.get("path")),
        "url": opt_str(source.get("url")),
        "contentType": content_type,
        "kind": kind,
        "fileName": opt_str(source.get("fileName")),
    }
    origin = source.get("origin")
    if origin in ("paste", "file"):
        fact["origin"] = origin
    if _is_number(size) and math.isfinite(size) and size >= 0:
        fact["sizeBytes"] = size
    for key in ("durationMs", "width", "height"):
        number = _positive_safe_integer(source.get(key))
        if number is not None:
            fact[key] = number
    fact["transcribed"] = source.get("transcribed") is True
    fact["messageId"] = opt_str(source.get("messageId"))
    workspace = opt_str(source.get("workspaceDir"))
    if workspace is not None:
        fact["workspaceDir"] = workspace
    for key in ("staged", "hydrationSuppressed"):
        if source.get(key) is True:
            fact[key] = True
    return {key: value for key, value in fact.items() if value is not None and value is not UNDEFINED}


def is_meaningful_media_fact(fact: Mapping[str, Any]) -> bool:
    """``isMeaningfulMediaFact``: a path or URL, a content type, or a truthy kind other than ``unknown``."""
    if opt_str(fact.get("path")) or opt_str(fact.get("url")) or js_truthy(fact.get("contentType", UNDEFINED)):
        return True
    kind = fact.get("kind", UNDEFINED)
    return js_truthy(kind) and kind != "unknown"


def extract_attachments(message: object) -> list[Any]:
    """``extractAttachmentsFromMessage`` (§9.2): non-text content blocks, then meaningful media facts.

    Content blocks are returned unchanged (the same objects); media facts are wrapped as
    ``{"type": "openclaw_media", "media": fact}``. No de-duplication between the two groups.
    """
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    out: list[Any] = []
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict | list):
                continue
            block_type = opt_str(block.get("type")) if isinstance(block, dict) else None
            if block_type != "text":
                out.append(block)
    meta = message.get("__openclaw")
    media = meta.get("media") if isinstance(meta, dict) else None
    if isinstance(media, list):
        for entry in media:
            fact = normalize_media_fact(entry)
            if is_meaningful_media_fact(fact):
                out.append({"type": "openclaw_media", "media": fact})
    return out
