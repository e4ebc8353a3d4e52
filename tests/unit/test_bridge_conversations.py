"""Normalisation functions, conversation descriptors, arguments and attachments (serve-bridge §0.4, §5, §9).

Expectations marked "reference" were produced by running the reference's own functions under node 24.
"""

from __future__ import annotations

from typing import Any

import pytest

from openclaw_mcp.domain.bridge.conversations import (
    AttachmentsFetchArgs,
    Conversation,
    ConversationsListArgs,
    MessagesReadArgs,
    conversation_from_describe,
    conversations_from_list,
    describe_params,
    extract_attachments,
    find_message,
    int_option,
    is_meaningful_media_fact,
    lower_or_empty,
    media_kind_from_mime,
    message_from_lookup,
    message_id_of,
    messages_from_response,
    normalize_media_fact,
    normalize_mime_type,
    normalize_session_key,
    opt_lower,
    opt_str,
    send_params,
    to_conversation,
)
from openclaw_mcp.jscompat.undefined import UNDEFINED

Descriptor = dict[str, Any] | None

SEEDED_ROW: dict[str, Any] = {
    "key": "agent:main:main",
    "kind": "direct",
    "channel": "imessage",
    "origin": {"provider": "imessage", "to": "+15551234567", "accountId": "imessage-default"},
    "displayName": "Docker MCP Channel Smoke",
    "derivedTitle": "Docker MCP Channel Smoke",
    "lastMessagePreview": "seeded image block",
    "updatedAt": 1795954303413,
    "label": None,
    "deliveryContext": {
        "channel": "imessage",
        "to": "+15551234567",
        "accountId": "imessage-default",
        "threadId": "thread-42",
    },
    "lastChannel": "imessage",
    "lastTo": "+15551234567",
    "lastAccountId": "imessage-default",
    "lastThreadId": "thread-42",
}

SEEDED_DESCRIPTOR = {
    "sessionKey": "agent:main:main",
    "channel": "imessage",
    "to": "+15551234567",
    "accountId": "imessage-default",
    "threadId": "thread-42",
    "displayName": "Docker MCP Channel Smoke",
    "derivedTitle": "Docker MCP Channel Smoke",
    "lastMessagePreview": "seeded image block",
    "updatedAt": 1795954303413,
}


# --- §0.4 ---


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", None),
        (" ", None),
        ("\ufeff", None),
        ("\u0085", "\u0085"),
        ("a b", "a b"),
        (" \u2029x\u205f ", "x"),
        (42, None),
        (None, None),
        (True, None),
        ([1], None),
        ({"a": 1}, None),
    ],
)
def test_opt_str_trims_strings_and_drops_blank_and_non_strings(value: object, expected: str | None) -> None:
    assert opt_str(value) == expected


def test_opt_lower_and_lower_or_empty_lower_case_the_trimmed_string() -> None:
    assert opt_lower("  IMESSAGE ") == "imessage"
    assert opt_lower("   ") is None
    assert lower_or_empty(None) == ""
    assert lower_or_empty(" Tele ") == "tele"


@pytest.mark.parametrize(
    ("value", "fallback", "lo", "hi", "expected"),
    [
        (None, 50, 1, 500, 50),
        (0, 50, 1, 500, 1),
        (501, 50, 1, 500, 500),
        (1.5, 20, 1, 200, 1),
        (-3.5, 20, 1, 200, 1),
        (True, 20, 1, 200, 20),
        ("5", 20, 1, 200, 20),
        (1e300, 20, 1, 200, 200),
        (float("inf"), 20, 1, 200, 20),
        (float("nan"), 20, 1, 200, 20),
        (3_000_000_000, 30000, 1, 300000, 300000),
        (10000, 20, 1, 200, 200),
        (199.9, 20, 1, 200, 199),
    ],
)
def test_int_option_floors_finite_numbers_and_clamps(
    value: object, fallback: int, lo: int, hi: int, expected: int
) -> None:
    assert int_option(value, fallback, lo, hi) == expected


# --- §5.0.2 descriptor ---


def test_seeded_session_row_becomes_the_observed_descriptor() -> None:
    conversation = to_conversation(SEEDED_ROW)
    assert conversation is not None
    assert conversation.to_json() == SEEDED_DESCRIPTOR
    assert list(conversation.to_json()) == list(SEEDED_DESCRIPTOR)


@pytest.mark.parametrize(
    ("row", "descriptor"),
    [
        ({}, None),
        ({"key": "k"}, None),
        ({"channel": "c"}, None),
        ({"lastTo": "t"}, None),
        ("not a row", None),
        (None, None),
        (
            {"key": "k", "channel": "Telegram", "lastTo": " 42 "},
            {"sessionKey": "k", "channel": "telegram", "to": "42", "updatedAt": None},
        ),
        (
            {
                "key": "k",
                "deliveryContext": {"channel": " SLACK ", "to": "C1", "accountId": " ", "threadId": None},
                "lastThreadId": 0,
                "origin": {"threadId": None},
            },
            {"sessionKey": "k", "channel": "slack", "to": "C1", "threadId": 0, "updatedAt": None},
        ),
        (
            {
                "key": "k",
                "deliveryContext": "x",
                "lastChannel": "x",
                "lastTo": "y",
                "origin": {"provider": "p", "accountId": "acc", "threadId": None},
            },
            {
                "sessionKey": "k",
                "channel": "x",
                "to": "y",
                "accountId": "acc",
                "threadId": None,
                "updatedAt": None,
            },
        ),
        (
            {
                "key": "k",
                "origin": {"provider": "P", "accountId": "acc", "threadId": 7},
                "lastTo": "t",
                "updatedAt": True,
            },
            {
                "sessionKey": "k",
                "channel": "p",
                "to": "t",
                "accountId": "acc",
                "threadId": 7,
                "updatedAt": None,
            },
        ),
        (
            {
                "key": 12,
                "channel": "c",
                "lastTo": "t",
                "lastThreadId": False,
                "updatedAt": 1.5,
                "label": "  l ",
                "displayName": 3,
                "derivedTitle": "",
                "lastMessagePreview": "\ufeffp\u3000",
            },
            {
                "sessionKey": 12,
                "channel": "c",
                "to": "t",
                "threadId": False,
                "label": "l",
                "lastMessagePreview": "p",
                "updatedAt": 1.5,
            },
        ),
        (
            {
                "key": None,
                "deliveryContext": [1],
                "channel": "\xa0c\xa0",
                "lastTo": "t",
                "lastThreadId": {"a": 1},
            },
            {"sessionKey": None, "channel": "c", "to": "t", "threadId": {"a": 1}, "updatedAt": None},
        ),
        (
            {"channel": "c", "lastTo": "t", "deliveryContext": {"threadId": "th"}, "lastThreadId": "x"},
            {"channel": "c", "to": "t", "threadId": "th", "updatedAt": None},
        ),
        ({"channel": "c", "lastTo": "\x85"}, {"channel": "c", "to": "\x85", "updatedAt": None}),
    ],
)
def test_to_conversation_matches_the_reference_projection(row: object, descriptor: Descriptor) -> None:
    conversation = to_conversation(row)
    assert (None if conversation is None else conversation.to_json()) == descriptor


def test_channel_precedence_is_delivery_context_then_last_channel_then_channel_then_origin() -> None:
    base: dict[str, Any] = {"lastTo": "t", "origin": {"provider": "O"}}
    assert to_conversation(base) == Conversation(session_key=UNDEFINED, channel="o", to="t")
    with_channel = to_conversation({**base, "channel": "C"})
    assert with_channel is not None and with_channel.channel == "c"
    with_last = to_conversation({**base, "channel": "C", "lastChannel": "L"})
    assert with_last is not None and with_last.channel == "l"
    delivery = {"channel": "D"}
    with_delivery = to_conversation({**base, "channel": "C", "lastChannel": "L", "deliveryContext": delivery})
    assert with_delivery is not None and with_delivery.channel == "d"


def test_thread_id_text_stringifies_numbers_and_is_none_for_null_or_absent() -> None:
    assert Conversation(session_key="k", channel="c", to="t", thread_id=42).thread_id_text == "42"
    assert Conversation(session_key="k", channel="c", to="t", thread_id=None).thread_id_text is None
    assert Conversation(session_key="k", channel="c", to="t").thread_id_text is None


# --- §5.1 conversations_list ---


def test_conversations_list_defaults_build_the_recorded_request() -> None:
    args = ConversationsListArgs.from_arguments({})
    assert args.request_params() == {"limit": 50, "includeDerivedTitles": True, "includeLastMessage": True}


def test_conversations_list_search_is_sent_untrimmed_between_limit_and_flags() -> None:
    raw = {"search": " Docker ", "limit": 1, "includeLastMessage": False}
    args = ConversationsListArgs.from_arguments(raw)
    assert list(args.request_params().items()) == [
        ("limit", 1),
        ("search", " Docker "),
        ("includeDerivedTitles", True),
        ("includeLastMessage", False),
    ]


def test_conversations_list_channel_is_a_lower_cased_client_side_filter() -> None:
    args = ConversationsListArgs.from_arguments({"channel": " IMESSAGE ", "bogus": 1})
    assert args.channel == "imessage"
    assert "channel" not in args.request_params()
    telegram = {**SEEDED_ROW, "key": "x", "deliveryContext": {"channel": "telegram"}}
    response = {"sessions": [SEEDED_ROW, telegram]}
    assert [c.session_key for c in conversations_from_list(response, args.channel)] == ["agent:main:main"]
    assert conversations_from_list(response, "telegram")[0].session_key == "x"
    assert conversations_from_list(response, None)[1].channel == "telegram"
    assert ConversationsListArgs.from_arguments({"channel": "   "}).channel is None


def test_conversations_list_drops_unroutable_rows_and_keeps_gateway_order() -> None:
    response = {"sessions": [{"key": "a"}, {**SEEDED_ROW, "key": "b"}, {**SEEDED_ROW, "key": "c"}]}
    assert [c.session_key for c in conversations_from_list(response)] == ["b", "c"]
    assert conversations_from_list({}) == []
    assert conversations_from_list({"sessions": None}) == []


# --- §5.2 / §5.7 ---


def test_session_keys_are_js_trimmed_and_blank_keys_need_no_request() -> None:
    assert normalize_session_key("  agent:main:main  ") == "agent:main:main"
    assert normalize_session_key("   ") is None
    assert normalize_session_key("\ufeff") is None
    assert describe_params("agent:main:main") == {
        "key": "agent:main:main",
        "includeDerivedTitles": True,
        "includeLastMessage": True,
    }


def test_describe_answer_maps_to_a_conversation_or_none() -> None:
    described = conversation_from_describe({"session": SEEDED_ROW})
    assert described is not None and described.to_json() == SEEDED_DESCRIPTOR
    assert conversation_from_describe({"session": None}) is None
    assert conversation_from_describe({"session": {"key": "k"}}) is None
    assert conversation_from_describe({}) is None


def test_send_params_follow_the_conversation_route() -> None:
    conversation = to_conversation(SEEDED_ROW)
    assert conversation is not None
    assert send_params(conversation, "reply from mcp", "uuid-1") == {
        "to": "+15551234567",
        "channel": "imessage",
        "accountId": "imessage-default",
        "threadId": "thread-42",
        "message": "reply from mcp",
        "sessionKey": "agent:main:main",
        "idempotencyKey": "uuid-1",
    }


def test_send_params_stringify_numeric_thread_ids() -> None:
    row = {
        "key": "k",
        "channel": "telegram",
        "deliveryContext": {"to": "-100123", "accountId": "acct-1", "threadId": 42},
    }
    conversation = to_conversation(row)
    assert conversation is not None
    params = send_params(conversation, " hi ", "u")
    assert (params["to"], params["channel"], params["accountId"], params["threadId"]) == (
        "-100123",
        "telegram",
        "acct-1",
        "42",
    )
    assert params["message"] == " hi "


def test_send_params_omit_absent_account_and_null_thread() -> None:
    conversation = to_conversation({"key": "k", "channel": "c", "lastTo": "t", "lastThreadId": None})
    assert conversation is not None
    assert list(send_params(conversation, "m", "u")) == [
        "to",
        "channel",
        "message",
        "sessionKey",
        "idempotencyKey",
    ]


# --- §5.3 messages_read ---


def test_messages_read_limit_defaults_to_20_and_key_is_not_trimmed() -> None:
    assert MessagesReadArgs.from_arguments({"session_key": " k "}).request_params() == {
        "key": " k ",
        "limit": 20,
    }
    assert MessagesReadArgs.from_arguments({"session_key": "k", "limit": 10}).request_params() == {
        "key": "k",
        "limit": 10,
    }


def test_messages_are_passed_through_and_missing_messages_are_empty() -> None:
    messages = [{"role": "user", "content": "x"}]
    assert messages_from_response({"messages": messages}) is messages
    assert messages_from_response({}) == []
    assert messages_from_response({"messages": None}) == []


# --- §5.4 / §9 ---


def test_attachments_exact_lookup_ignores_limit_and_legacy_lookup_defaults_to_100() -> None:
    args = AttachmentsFetchArgs.from_arguments({"session_key": "k", "message_id": "m", "limit": 1})
    assert args.exact_params() == {"sessionKey": "k", "messageId": "m"}
    assert args.legacy_params() == {"key": "k", "limit": 1}
    default = AttachmentsFetchArgs.from_arguments({"session_key": "k", "message_id": "m"})
    assert default.legacy_params() == {"key": "k", "limit": 100}


def test_exact_lookup_answer_yields_the_message_only_when_ok_is_true() -> None:
    message = {"role": "user", "content": "x"}
    assert message_from_lookup({"ok": True, "message": message}) is message
    assert message_from_lookup({"ok": False, "unavailableReason": "not_found"}) is None
    assert message_from_lookup({"ok": True}) is None
    assert message_from_lookup({"ok": "true", "message": message}) is None


@pytest.mark.parametrize(
    ("entry", "message_id"),
    [
        ({"id": " a "}, "a"),
        ({"id": "", "__openclaw": {"id": "z"}}, "z"),
        ({"__openclaw": {"id": " m1 "}}, "m1"),
        ({"id": 5, "__openclaw": [1]}, None),
        ({"__openclaw": None}, None),
        ("s", None),
    ],
)
def test_message_id_is_the_entry_id_else_the_openclaw_id(entry: object, message_id: str | None) -> None:
    assert message_id_of(entry) == message_id


def test_legacy_lookup_finds_the_first_message_with_that_exact_id() -> None:
    first = {"__openclaw": {"id": "msg-attachment"}, "n": 1}
    second = {"id": "msg-attachment", "n": 2}
    messages = [{"__openclaw": {"id": "msg-1"}}, first, second]
    assert find_message(messages, "msg-attachment") is first
    assert find_message(messages, "msg-attachment ") is None
    assert find_message([], "x") is None


SEEDED_ATTACHMENT_MESSAGE = {
    "role": "user",
    "content": "seeded image attachment",
    "__openclaw": {
        "media": [
            {
                "url": "media://inbound/seeded-image.png",
                "contentType": "image/png",
                "kind": "image",
                "fileName": "seeded-image.png",
                "sizeBytes": 3,
            }
        ],
        "id": "msg-attachment",
        "seq": 2,
    },
    "timestamp": 1795954303414,
}


def test_seeded_media_message_yields_the_observed_openclaw_media_attachment() -> None:
    assert extract_attachments(SEEDED_ATTACHMENT_MESSAGE) == [
        {
            "type": "openclaw_media",
            "media": {
                "url": "media://inbound/seeded-image.png",
                "contentType": "image/png",
                "kind": "image",
                "fileName": "seeded-image.png",
                "sizeBytes": 3,
                "transcribed": False,
            },
        }
    ]


def test_non_text_content_blocks_are_returned_unchanged() -> None:
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png"},
        "omitted": True,
        "bytes": 2,
    }
    message = {"role": "assistant", "content": [{"type": "text", "text": "seeded image block"}, image]}
    attachments = extract_attachments(message)
    assert attachments == [image]
    assert attachments[0] is image
    assert extract_attachments({"content": [{"type": "text", "text": "hello"}]}) == []


def test_spec_case_48_content_and_media_attachments() -> None:
    message = {
        "content": [{"type": "text", "text": "a"}, {"type": " text "}, {"foo": 1}, [1], "s", None],
        "__openclaw": {"media": [{"path": "  "}, {"kind": "unknown"}, {"contentType": "application/pdf"}, 5]},
    }
    assert extract_attachments(message) == [
        {"foo": 1},
        [1],
        {
            "type": "openclaw_media",
            "media": {"contentType": "application/pdf", "kind": "document", "transcribed": False},
        },
    ]


def test_media_facts_normalise_like_the_reference() -> None:
    media = [
        {"contentType": "application/octet-stream"},
        {"contentType": "Image/APNG; q=1"},
        {"contentType": "text/yaml"},
        {"contentType": "foo/bar"},
        {
            "url": " u ",
            "kind": None,
            "origin": "paste",
            "sizeBytes": 0,
            "durationMs": 5.0,
            "width": -1,
            "height": 1.5,
            "transcribed": True,
            "messageId": " x ",
            "workspaceDir": " w ",
            "staged": True,
            "hydrationSuppressed": 1,
        },
        {
            "path": "p",
            "kind": "",
            "sizeBytes": -1,
            "origin": "other",
            "fileName": " f ",
            "durationMs": 9007199254740992,
            "width": 9007199254740991,
        },
        {"kind": 0},
        {"kind": False},
        {"kind": []},
        {"kind": {}},
        {"kind": "Unknown"},
        {"contentType": ";x"},
        {"contentType": "binary/octet-stream", "kind": None},
        {"contentType": "application/xml"},
        {"contentType": "video/matroska"},
        {"contentType": " AUDIO/ogg "},
        [1],
        None,
        "s",
    ]
    facts = [a["media"] for a in extract_attachments({"content": "", "__openclaw": {"media": media}})]
    assert facts == [
        {"contentType": "application/octet-stream", "transcribed": False},
        {"contentType": "Image/APNG; q=1", "kind": "image", "transcribed": False},
        {"contentType": "text/yaml", "kind": "document", "transcribed": False},
        {"contentType": "foo/bar", "transcribed": False},
        {
            "url": "u",
            "origin": "paste",
            "sizeBytes": 0,
            "durationMs": 5,
            "transcribed": True,
            "messageId": "x",
            "workspaceDir": "w",
            "staged": True,
        },
        {"path": "p", "kind": "", "fileName": "f", "width": 9007199254740991, "transcribed": False},
        {"kind": [], "transcribed": False},
        {"kind": {}, "transcribed": False},
        {"kind": "Unknown", "transcribed": False},
        {"contentType": ";x", "transcribed": False},
        {"contentType": "binary/octet-stream", "transcribed": False},
        {"contentType": "application/xml", "kind": "document", "transcribed": False},
        {"contentType": "video/matroska", "kind": "video", "transcribed": False},
        {"contentType": "AUDIO/ogg", "kind": "audio", "transcribed": False},
    ]


def test_media_fact_key_order_follows_the_spec_table() -> None:
    entry = {
        "hydrationSuppressed": True,
        "staged": True,
        "workspaceDir": "w",
        "messageId": "m",
        "transcribed": True,
        "height": 2,
        "width": 3,
        "durationMs": 4,
        "sizeBytes": 5,
        "origin": "file",
        "fileName": "f",
        "kind": "image",
        "contentType": "image/png",
        "url": "u",
        "path": "p",
    }
    assert list(normalize_media_fact(entry)) == [
        "path",
        "url",
        "contentType",
        "kind",
        "fileName",
        "origin",
        "sizeBytes",
        "durationMs",
        "width",
        "height",
        "transcribed",
        "messageId",
        "workspaceDir",
        "staged",
        "hydrationSuppressed",
    ]


def test_a_non_object_media_entry_is_an_empty_unmeaningful_fact() -> None:
    assert normalize_media_fact(5) == {"transcribed": False}
    assert not is_meaningful_media_fact(normalize_media_fact(5))


def test_media_outside_a_non_array_openclaw_object_is_ignored() -> None:
    assert extract_attachments({"__openclaw": [{"media": [{"url": "u"}]}]}) == []
    assert extract_attachments({"__openclaw": {"media": {"url": "u"}}}) == []
    assert extract_attachments({"media": [{"url": "u"}]}) == []
    assert extract_attachments([{"type": "image"}]) == []
    assert extract_attachments(None) == []


@pytest.mark.parametrize(
    ("mime", "normalized", "kind"),
    [
        ("image/apng", "image/png", "image"),
        ("text/yaml", "application/yaml", "document"),
        ("application/x-yaml", "application/yaml", "document"),
        ("application/xml", "text/xml", "document"),
        ("video/vnd.avi", "video/x-msvideo", "video"),
        ("video/matroska", "video/x-matroska", "video"),
        (" Audio/OGG ; codecs=opus", "audio/ogg", "audio"),
        ("application/pdf", "application/pdf", "document"),
        ("font/woff", "font/woff", None),
        (";x", None, None),
        (None, None, None),
    ],
)
def test_mime_types_normalise_and_map_to_media_families(
    mime: str | None, normalized: str | None, kind: str | None
) -> None:
    assert normalize_mime_type(mime) == normalized
    assert media_kind_from_mime(mime) == kind
