# ruff: noqa: E501  (the reference-verified cases below are kept one per line)
"""Tool argument validation with zod 4's texts (spec serve-bridge §4.3, §4.4) and hostile input.

``VERIFIED`` holds argument sets generated with a seeded generator and answered by the reference's own zod and
MCP SDK (``McpServer.validateToolInput``, node 24, OpenClaw 2026.9.6): the issue text after
``Invalid arguments for tool <name>: ``, or the accepted arguments as JSON. The fuzz test sends over a
thousand generated calls across the nine tools through the whole server: every request gets exactly one
answer, a result or a JSON-RPC error, and the server keeps serving.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.application.bridge.tools import TOOLS, TOOLS_BY_NAME
from openclaw_mcp.domain.bridge.arguments import ValidationFailed, validate_arguments
from openclaw_mcp.entrypoints.serve.jsonrpc import parse_json
from openclaw_mcp.entrypoints.serve.tools import invalid_arguments_text
from openclaw_mcp.jscompat.jsjson import js_dumps
from tests.unit.serve_fakes import seeded_gateway, serve_session

# fmt: off
VERIFIED: list[tuple[str, str | None, str | None, str | None]] = [
    ('conversation_get', '{}', 'Invalid input: expected string, received undefined at session_key', None),
    ('permissions_respond', '{"__proto__x":-1e21,"session_key":[1],"bogus":[[]]}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received undefined at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('conversations_list', '{"channel":300001,"__proto__x":"allow-always","includeDerivedTitles":-9007199254740993,"limit":-0}', 'Too small: expected number to be >=1 at limit\nInvalid input: expected string, received number at channel\nInvalid input: expected boolean, received number at includeDerivedTitles', None),
    ('messages_read', '{"bogus":{"length":"0x1"},"limit":"x","session_key":0.5}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected number, received string at limit', None),
    ('conversation_get', '{"session_key":"allow-once","__proto__x":1e-7}', None, '{"session_key":"allow-once"}'),
    ('permissions_respond', '{"limit":"0","session_key":[1],"kind":201,"__proto__x":2.0}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received undefined at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('permissions_list_open', '{"__proto__x":0.5}', None, '{}'),
    ('events_poll', '{"bogus":501,"limit":1e21,"session_key":2.0}', 'Invalid input: expected string, received number at session_key\nToo big: expected int to be <=9007199254740991 at limit\nToo big: expected number to be <=200 at limit', None),
    ('permissions_respond', '{"kind":501,"decision":[[]],"id":"exec"}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('permissions_list_open', '{"bogus":{"length":0},"__proto__x":500}', None, '{}'),
    ('permissions_list_open', '{"session_key":501}', None, '{}'),
    ('messages_send', '{"session_key":["a"],"text":" ","__proto__x":1.5}', 'Invalid input: expected string, received array at session_key', None),
    ('permissions_respond', '{"decision":9007199254740992}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received undefined at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('messages_read', '{"session_key":-1.5,"limit":1,"session_key":1e0}', 'Invalid input: expected string, received number at session_key', None),
    ('permissions_respond', '{"bogus":-0,"decision":-1,"limit":-9007199254740993,"id":501}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received number at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('events_wait', '{"session_key":[1],"__proto__x":[],"limit":"allow-once","after_cursor":1.5,"session_key":"x"}', 'Invalid input: expected int, received number at after_cursor', None),
    ('conversations_list', '{"session_key":{"a":1},"bogus":{"length":"0x1"},"search":"allow-always","includeDerivedTitles":12345678901234567890123,"__proto__x":["a"]}', 'Invalid input: expected boolean, received number at includeDerivedTitles', None),
    ('messages_send', '{"limit":"exec","session_key":12345678901234567890123,"text":9007199254740991,"bogus":500}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected string, received number at text', None),
    ('events_wait', '{"after_cursor":"allow-once","session_key":1}', 'Invalid input: expected number, received string at after_cursor\nInvalid input: expected string, received number at session_key', None),
    ('messages_send', '{"limit":1e0,"bogus":true,"session_key":"\\ud800"}', 'Invalid input: expected string, received undefined at text', None),
    ('conversation_get', '{"limit":-1e21,"session_key":{"length":"abc"}}', 'Invalid input: expected string, received object at session_key\nToo small: expected unknown to be >=1 at session_key', None),
    ('conversation_get', '{"__proto__x":{},"bogus":"\\ud800","limit":-9007199254740993,"session_key":""}', 'Too small: expected string to have >=1 characters at session_key', None),
    ('events_poll', '{"session_key":300001,"session_key":null,"__proto__x":300000,"limit":1e-7,"after_cursor":9007199254740992}', 'Too big: expected int to be <=9007199254740991 at after_cursor\nInvalid input: expected string, received null at session_key\nInvalid input: expected int, received number at limit', None),
    ('permissions_respond', '{"id":[[]],"decision":{},"__proto__x":200}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received array at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('messages_send', '{"__proto__x":{"length":"1e0"}}', 'Invalid input: expected string, received undefined at session_key\nInvalid input: expected string, received undefined at text', None),
    ('events_wait', '{"__proto__x":"EXEC","bogus":[[]],"session_key":[[]],"timeout_ms":9007199254740993}', 'Invalid input: expected string, received array at session_key\nToo big: expected int to be <=9007199254740991 at timeout_ms\nToo big: expected number to be <=300000 at timeout_ms', None),
    ('attachments_fetch', '{"message_id":[1],"bogus":-9007199254740993,"__proto__x":"","limit":false}', 'Invalid input: expected string, received undefined at session_key\nInvalid input: expected string, received array at message_id\nInvalid input: expected number, received boolean at limit', None),
    ('messages_send', '{"limit":true}', 'Invalid input: expected string, received undefined at session_key\nInvalid input: expected string, received undefined at text', None),
    ('permissions_respond', '{"bogus":9007199254740992,"id":true,"decision":"agent:main:main","kind":2.0,"limit":{}}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received boolean at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('events_wait', '{"limit":0,"session_key":"0"}', None, '{"session_key":"0"}'),
    ('messages_send', '{"text":{"length":"0b"},"limit":-9007199254740993,"session_key":["a"],"bogus":12345678901234567890123,"session_key":"x","__proto__x":"agent:main:main"}', 'Invalid input: expected string, received object at text\nToo small: expected unknown to be >=1 at text', None),
    ('messages_send', '{}', 'Invalid input: expected string, received undefined at session_key\nInvalid input: expected string, received undefined at text', None),
    ('messages_read', '{"session_key":{"length":" 1 "},"limit":{"length":"0x1"},"session_key":200}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected number, received object at limit', None),
    ('conversations_list', '{"limit":300001,"session_key":{"length":[2]},"limit":"allow-once","includeLastMessage":2.0}', 'Invalid input: expected number, received string at limit\nInvalid input: expected boolean, received number at includeLastMessage', None),
    ('events_poll', '{"session_key":{"length":[2]},"after_cursor":-1e400,"__proto__x":[[]]}', 'Invalid input: expected number, received -Infinity at after_cursor\nInvalid input: expected string, received object at session_key', None),
    ('permissions_respond', None, 'Invalid input: expected object, received undefined', None),
    ('events_wait', '{"session_key":9007199254740991,"limit":1e400,"after_cursor":4.0000000000000001,"session_key":"0","__proto__x":2.0}', None, '{"after_cursor":4,"session_key":"0"}'),
    ('events_wait', '{"bogus":1.5,"__proto__x":-9007199254740993,"timeout_ms":[1],"limit":"exec","session_key":"allow-once"}', 'Invalid input: expected number, received array at timeout_ms', None),
    ('conversation_get', '{"bogus":"0","session_key":"deny","limit":9007199254740992,"__proto__x":{"length":" 1 "}}', None, '{"session_key":"deny"}'),
    ('messages_read', '{"bogus":["a"],"session_key":12345678901234567890123,"limit":{"length":"0b"},"__proto__x":2.0}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected number, received object at limit', None),
    ('messages_send', '{"limit":"allow-always","text":{"length":"0b"},"__proto__x":2.0}', 'Invalid input: expected string, received undefined at session_key\nInvalid input: expected string, received object at text\nToo small: expected unknown to be >=1 at text', None),
    ('events_poll', '{"after_cursor":0.5,"limit":"\\ud800","__proto__x":"\\ud800","session_key":"deny"}', 'Invalid input: expected int, received number at after_cursor\nInvalid input: expected number, received string at limit', None),
    ('events_wait', '{"bogus":"EXEC","after_cursor":500,"session_key":"deny","session_key":[[]]}', 'Invalid input: expected string, received array at session_key', None),
    ('conversations_list', '{"bogus":[1],"includeLastMessage":"x","session_key":{"length":0},"__proto__x":[[]],"includeDerivedTitles":[[]]}', 'Invalid input: expected boolean, received array at includeDerivedTitles\nInvalid input: expected boolean, received string at includeLastMessage', None),
    ('attachments_fetch', '{"message_id":9007199254740991,"limit":1e-7,"session_key":"\\ud800","__proto__x":1e21}', 'Invalid input: expected string, received number at message_id\nInvalid input: expected int, received number at limit', None),
    ('permissions_respond', '{"limit":-9007199254740993,"__proto__x":4.0000000000000001,"session_key":"agent:main:main"}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received undefined at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('conversations_list', '{"includeLastMessage":{"length":"0b"},"limit":"agent:main:main","channel":{"length":"abc"},"includeDerivedTitles":1e400,"limit":"EXEC","session_key":1e-7}', 'Invalid input: expected number, received string at limit\nInvalid input: expected string, received object at channel\nInvalid input: expected boolean, received Infinity at includeDerivedTitles\nInvalid input: expected boolean, received object at includeLastMessage', None),
    ('permissions_respond', '{"decision":500,"id":"0","bogus":"deny","session_key":300001}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('attachments_fetch', None, 'Invalid input: expected object, received undefined', None),
    ('attachments_fetch', '{"session_key":"allow-once","session_key":"\\ud800","message_id":200,"bogus":12345678901234567890123}', 'Invalid input: expected string, received number at message_id', None),
    ('permissions_respond', '{"bogus":2.0,"kind":2.0,"limit":{"length":"1e0"}}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received undefined at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('events_poll', '{"limit":1e0,"session_key":1e21,"session_key":0}', 'Invalid input: expected string, received number at session_key', None),
    ('messages_send', '{"limit":"allow-always","session_key":"allow-always","session_key":"\\ud800","bogus":"plugin"}', 'Invalid input: expected string, received undefined at text', None),
    ('permissions_respond', '{"__proto__x":{"length":"1e0"},"id":"\\u0000","limit":{"length":"abc"},"session_key":"plugin","kind":-1}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('attachments_fetch', '{"session_key":201,"limit":1e400,"session_key":1e400,"limit":"","bogus":12345678901234567890123}', 'Invalid input: expected string, received Infinity at session_key\nInvalid input: expected string, received undefined at message_id\nInvalid input: expected number, received string at limit', None),
    ('conversation_get', '{"session_key":501,"__proto__x":500,"limit":"\\ud800","bogus":1}', 'Invalid input: expected string, received number at session_key', None),
    ('attachments_fetch', '{"message_id":"deny","__proto__x":1e400}', 'Invalid input: expected string, received undefined at session_key', None),
    ('conversations_list', '{"limit":[],"limit":1e21,"channel":-1.5,"includeDerivedTitles":2.0,"__proto__x":{"length":0}}', 'Too big: expected int to be <=9007199254740991 at limit\nToo big: expected number to be <=500 at limit\nInvalid input: expected string, received number at channel\nInvalid input: expected boolean, received number at includeDerivedTitles', None),
    ('permissions_list_open', '{"bogus":["a"],"limit":"allow-once"}', None, '{}'),
    ('conversations_list', '{"includeDerivedTitles":{"a":1},"session_key":2.0,"limit":"allow-once"}', 'Invalid input: expected number, received string at limit\nInvalid input: expected boolean, received object at includeDerivedTitles', None),
    ('conversation_get', '{"bogus":false,"session_key":12345678901234567890123,"__proto__x":{"length":" 1 "},"session_key":[]}', 'Invalid input: expected string, received array at session_key\nToo small: expected array to have >=1 items at session_key', None),
    ('events_poll', '{"session_key":false,"after_cursor":{"length":"0x1"},"__proto__x":[],"bogus":"plugin"}', 'Invalid input: expected number, received object at after_cursor\nInvalid input: expected string, received boolean at session_key', None),
    ('conversation_get', '{"session_key":false,"bogus":true,"__proto__x":["a"],"limit":200}', 'Invalid input: expected string, received boolean at session_key', None),
    ('permissions_respond', '{"limit":"allow-once","bogus":12345678901234567890123,"session_key":1e400}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received undefined at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('permissions_respond', '{"__proto__x":1e21,"session_key":{"length":"-Infinity"},"bogus":null,"kind":1.5,"limit":0}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received undefined at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('conversations_list', '{"bogus":4.0000000000000001,"includeLastMessage":false}', None, '{"includeLastMessage":false}'),
    ('attachments_fetch', '{"limit":{"a":1},"message_id":1,"bogus":null,"limit":-0,"session_key":300001,"__proto__x":{"length":0}}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected string, received number at message_id\nToo small: expected number to be >=1 at limit', None),
    ('permissions_list_open', '{"session_key":false,"__proto__x":-1e400,"limit":"x","bogus":201}', None, '{}'),
    ('messages_read', '{"__proto__x":{"length":[2]},"limit":9007199254740993,"session_key":true,"bogus":{"a":1}}', 'Invalid input: expected string, received boolean at session_key\nToo big: expected int to be <=9007199254740991 at limit\nToo big: expected number to be <=200 at limit', None),
    ('permissions_list_open', '{"__proto__x":{"length":"1e0"},"bogus":{"length":"-Infinity"},"limit":"exec"}', None, '{}'),
    ('permissions_list_open', '{"limit":-9007199254740993,"session_key":"\\ud800"}', None, '{}'),
    ('attachments_fetch', '{"session_key":{"length":[2]},"__proto__x":true}', 'Invalid input: expected string, received object at session_key\nInvalid input: expected string, received undefined at message_id', None),
    ('messages_read', '{"limit":"plugin","__proto__x":-0,"limit":"agent:main:main"}', 'Invalid input: expected string, received undefined at session_key\nInvalid input: expected number, received string at limit', None),
    ('permissions_respond', '{"limit":"EXEC","decision":2.0,"id":[],"session_key":201,"kind":300001,"bogus":{}}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received array at id\nToo small: expected array to have >=1 items at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('permissions_list_open', '{"limit":{"length":[2]},"__proto__x":12345678901234567890123}', None, '{}'),
    ('messages_read', '{"session_key":{"length":0},"bogus":{"length":"abc"},"session_key":200,"limit":{"length":0}}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected number, received object at limit', None),
    ('messages_send', '{"session_key":"allow-always","limit":-1e400,"bogus":"allow-always","__proto__x":" ","text":[1]}', 'Invalid input: expected string, received array at text', None),
    ('conversations_list', '{"search":"\\u0000","channel":"EXEC","includeDerivedTitles":-1e400}', 'Invalid input: expected boolean, received -Infinity at includeDerivedTitles', None),
    ('permissions_respond', '{"kind":{"length":0},"decision":{"length":"0b"},"limit":{"length":"-Infinity"}}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received undefined at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('events_wait', '{"session_key":"","timeout_ms":1e400,"__proto__x":12345678901234567890123,"after_cursor":null}', 'Invalid input: expected number, received null at after_cursor\nInvalid input: expected number, received Infinity at timeout_ms', None),
    ('attachments_fetch', '{"__proto__x":[],"limit":-1,"limit":"plugin","message_id":{"length":"1e0"},"session_key":0.5,"bogus":true}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected string, received object at message_id\nInvalid input: expected number, received string at limit', None),
    ('events_wait', '{"bogus":1e-7,"after_cursor":4.0000000000000001,"session_key":9007199254740993,"limit":-1,"__proto__x":{"length":"-Infinity"}}', 'Invalid input: expected string, received number at session_key', None),
    ('conversation_get', '{"session_key":" ","bogus":"\\u0000"}', None, '{"session_key":" "}'),
    ('messages_read', '{"limit":-9007199254740993,"limit":-0,"bogus":0}', 'Invalid input: expected string, received undefined at session_key\nToo small: expected number to be >=1 at limit', None),
    ('messages_send', '{"limit":2.0,"session_key":"allow-always","text":"","bogus":1e0}', 'Too small: expected string to have >=1 characters at text', None),
    ('attachments_fetch', '{"limit":[[]],"limit":"\\u0000","message_id":{}}', 'Invalid input: expected string, received undefined at session_key\nInvalid input: expected string, received object at message_id\nInvalid input: expected number, received string at limit', None),
    ('permissions_respond', '{"decision":{"length":[2]},"id":"x","kind":[1],"limit":{"length":"0x1"}}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('permissions_respond', '{"limit":9007199254740992,"decision":501,"kind":1.5}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received undefined at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('messages_send', '{}', 'Invalid input: expected string, received undefined at session_key\nInvalid input: expected string, received undefined at text', None),
    ('permissions_list_open', '{"__proto__x":300001,"limit":{"length":"abc"},"session_key":{"length":[2]}}', None, '{}'),
    ('events_wait', '{"timeout_ms":"allow-always","__proto__x":12345678901234567890123,"session_key":-1e400,"after_cursor":true,"limit":9007199254740993}', 'Invalid input: expected number, received boolean at after_cursor\nInvalid input: expected string, received -Infinity at session_key\nInvalid input: expected number, received string at timeout_ms', None),
    ('conversations_list', '{"session_key":-1,"bogus":{},"includeDerivedTitles":-1,"limit":{"length":"0x1"},"search":12345678901234567890123}', 'Invalid input: expected number, received object at limit\nInvalid input: expected string, received number at search\nInvalid input: expected boolean, received number at includeDerivedTitles', None),
    ('conversation_get', '{"session_key":" ","session_key":"EXEC"}', None, '{"session_key":"EXEC"}'),
    ('events_poll', '{"session_key":0.5,"limit":0,"bogus":2.0,"limit":"allow-always","after_cursor":"\\ud800"}', 'Invalid input: expected number, received string at after_cursor\nInvalid input: expected string, received number at session_key\nInvalid input: expected number, received string at limit', None),
    ('permissions_list_open', '{"session_key":[[]],"__proto__x":-1.5}', None, '{}'),
    ('attachments_fetch', '{"__proto__x":-1e400,"session_key":-1,"limit":1e0,"message_id":2.0}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected string, received number at message_id', None),
    ('conversation_get', '{"limit":201,"__proto__x":"allow-always","session_key":300001,"session_key":"maybe"}', None, '{"session_key":"maybe"}'),
    ('attachments_fetch', '{"session_key":"EXEC","session_key":["a"],"limit":501}', 'Invalid input: expected string, received array at session_key\nInvalid input: expected string, received undefined at message_id\nToo big: expected number to be <=200 at limit', None),
    ('attachments_fetch', '{"__proto__x":201,"message_id":{},"limit":{"length":"-Infinity"},"session_key":"deny"}', 'Invalid input: expected string, received object at message_id\nInvalid input: expected number, received object at limit', None),
    ('events_poll', '{"__proto__x":9007199254740992,"after_cursor":4.0000000000000001,"bogus":9007199254740991,"limit":"\\ud800"}', 'Invalid input: expected number, received string at limit', None),
    ('conversations_list', '{"search":501,"limit":"","session_key":"exec","includeLastMessage":9007199254740992,"bogus":{}}', 'Invalid input: expected number, received string at limit\nInvalid input: expected string, received number at search\nInvalid input: expected boolean, received number at includeLastMessage', None),
    ('conversations_list', '{"includeLastMessage":{"a":1},"__proto__x":{"length":"-Infinity"},"bogus":1e400,"includeDerivedTitles":"","limit":300001}', 'Too big: expected number to be <=500 at limit\nInvalid input: expected boolean, received string at includeDerivedTitles\nInvalid input: expected boolean, received object at includeLastMessage', None),
    ('messages_send', '{"bogus":2.0,"session_key":1.5}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected string, received undefined at text', None),
    ('conversation_get', '{"session_key":"\\ud800","session_key":201,"limit":200,"__proto__x":false}', 'Invalid input: expected string, received number at session_key', None),
    ('messages_send', '{"text":501,"__proto__x":{"length":"1e0"},"limit":9007199254740991}', 'Invalid input: expected string, received undefined at session_key\nInvalid input: expected string, received number at text', None),
    ('attachments_fetch', '{"session_key":1e400,"__proto__x":[[]]}', 'Invalid input: expected string, received Infinity at session_key\nInvalid input: expected string, received undefined at message_id', None),
    ('attachments_fetch', '{"__proto__x":{"length":" 1 "},"session_key":"x","limit":1}', 'Invalid input: expected string, received undefined at message_id', None),
    ('messages_send', '{"session_key":1e21}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected string, received undefined at text', None),
    ('events_poll', '{"limit":-1e400,"session_key":1,"__proto__x":"\\ud800","session_key":{"length":"-Infinity"},"limit":{"length":[2]}}', 'Invalid input: expected string, received object at session_key\nInvalid input: expected number, received object at limit', None),
    ('permissions_respond', '{"kind":9007199254740992,"__proto__x":1e0,"limit":"\\ud800","session_key":"\\ud800"}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received undefined at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('permissions_list_open', '{"session_key":"deny","__proto__x":{"length":"-Infinity"}}', None, '{}'),
    ('messages_send', None, 'Invalid input: expected object, received undefined', None),
    ('messages_send', '{"session_key":0,"text":"deny"}', 'Invalid input: expected string, received number at session_key', None),
    ('events_wait', '{"limit":{"length":"abc"},"bogus":[[]],"__proto__x":501,"after_cursor":"exec","session_key":true}', 'Invalid input: expected number, received string at after_cursor\nInvalid input: expected string, received boolean at session_key', None),
    ('conversations_list', '{"includeDerivedTitles":1e-7,"bogus":-0,"channel":[[]],"session_key":300000,"__proto__x":1,"search":{"length":0},"limit":"plugin"}', 'Invalid input: expected number, received string at limit\nInvalid input: expected string, received object at search\nInvalid input: expected string, received array at channel\nInvalid input: expected boolean, received number at includeDerivedTitles', None),
    ('conversations_list', '{"channel":-1e400,"__proto__x":"EXEC","includeDerivedTitles":" ","limit":9007199254740993,"limit":{},"search":null}', 'Invalid input: expected number, received object at limit\nInvalid input: expected string, received null at search\nInvalid input: expected string, received -Infinity at channel\nInvalid input: expected boolean, received string at includeDerivedTitles', None),
    ('permissions_list_open', '{}', None, '{}'),
    ('permissions_list_open', '{"__proto__x":{"length":"0x1"}}', None, '{}'),
    ('messages_read', '{"limit":0,"limit":4.0000000000000001}', 'Invalid input: expected string, received undefined at session_key', None),
    ('permissions_respond', '{"id":{"length":"1e0"},"kind":12345678901234567890123}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received object at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('messages_send', '{"session_key":300001,"bogus":0.5,"__proto__x":"exec","text":9007199254740992,"session_key":9007199254740993}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected string, received number at text', None),
    ('attachments_fetch', '{"message_id":1.5,"limit":"\\ud800","session_key":201}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected string, received number at message_id\nInvalid input: expected number, received string at limit', None),
    ('messages_send', '{"__proto__x":"allow-once","session_key":1e0}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected string, received undefined at text', None),
    ('events_poll', '{"session_key":4.0000000000000001,"session_key":0.5,"after_cursor":{"length":[2]},"limit":201}', 'Invalid input: expected number, received object at after_cursor\nInvalid input: expected string, received number at session_key\nToo big: expected number to be <=200 at limit', None),
    ('conversations_list', '{"session_key":-1,"__proto__x":{"length":[2]},"search":"allow-once","bogus":"x","includeLastMessage":1.5}', 'Invalid input: expected boolean, received number at includeLastMessage', None),
    ('events_wait', '{"timeout_ms":{"length":"1e0"},"session_key":false,"after_cursor":501}', 'Invalid input: expected string, received boolean at session_key\nInvalid input: expected number, received object at timeout_ms', None),
    ('messages_send', '{"session_key":501,"text":-9007199254740993,"bogus":"x","limit":1e0,"session_key":"allow-always","__proto__x":{"length":"abc"}}', 'Invalid input: expected string, received number at text', None),
    ('attachments_fetch', '{"limit":501,"session_key":-1e21}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected string, received undefined at message_id\nToo big: expected number to be <=200 at limit', None),
    ('conversations_list', '{"__proto__x":{"a":1},"search":501}', 'Invalid input: expected string, received number at search', None),
    ('messages_read', '{"bogus":1e-7,"limit":{},"limit":1e400,"session_key":12345678901234567890123}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected number, received Infinity at limit', None),
    ('conversation_get', '{"bogus":501,"__proto__x":-9007199254740993,"session_key":-1e400}', 'Invalid input: expected string, received -Infinity at session_key', None),
    ('conversation_get', '{"session_key":-1.5,"session_key":1e400,"limit":1e21}', 'Invalid input: expected string, received Infinity at session_key', None),
    ('permissions_respond', '{"limit":{},"decision":200,"session_key":201,"id":"allow-once","kind":"maybe","__proto__x":-1.5}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('attachments_fetch', '{"__proto__x":0.5,"bogus":["a"]}', 'Invalid input: expected string, received undefined at session_key\nInvalid input: expected string, received undefined at message_id', None),
    ('events_poll', '{"session_key":1e21,"limit":9007199254740992,"limit":{"length":"abc"},"bogus":2.0,"session_key":-1e400,"after_cursor":1e0}', 'Invalid input: expected string, received -Infinity at session_key\nInvalid input: expected number, received object at limit', None),
    ('permissions_list_open', '{"__proto__x":[1],"bogus":{"length":"0b"}}', None, '{}'),
    ('messages_send', '{"limit":"x","text":-1e21,"__proto__x":"","session_key":1e-7}', 'Invalid input: expected string, received number at session_key\nInvalid input: expected string, received number at text', None),
    ('attachments_fetch', '{"session_key":["a"],"limit":-1,"bogus":"\\u0000","session_key":{"length":"abc"}}', 'Invalid input: expected string, received object at session_key\nToo small: expected unknown to be >=1 at session_key\nInvalid input: expected string, received undefined at message_id\nToo small: expected number to be >=1 at limit', None),
    ('events_poll', '{"limit":"allow-always","limit":300000,"bogus":true,"session_key":"\\u0000"}', 'Too big: expected number to be <=200 at limit', None),
    ('permissions_list_open', '{"limit":1e-7,"bogus":-1e400,"__proto__x":"exec"}', None, '{}'),
    ('conversations_list', '{"includeLastMessage":" ","__proto__x":null,"includeDerivedTitles":{},"bogus":9007199254740993,"limit":{"length":"0x1"},"channel":500}', 'Invalid input: expected number, received object at limit\nInvalid input: expected string, received number at channel\nInvalid input: expected boolean, received object at includeDerivedTitles\nInvalid input: expected boolean, received string at includeLastMessage', None),
    ('conversations_list', '{"__proto__x":9007199254740991,"limit":-1.5,"includeDerivedTitles":1,"session_key":[1],"search":null}', 'Invalid input: expected int, received number at limit\nInvalid input: expected string, received null at search\nInvalid input: expected boolean, received number at includeDerivedTitles', None),
    ('conversations_list', '{"includeLastMessage":" ","limit":200,"channel":1e21,"includeDerivedTitles":"\\u0000","session_key":200,"__proto__x":{"length":0},"bogus":{"length":"-Infinity"}}', 'Invalid input: expected string, received number at channel\nInvalid input: expected boolean, received string at includeDerivedTitles\nInvalid input: expected boolean, received string at includeLastMessage', None),
    ('conversation_get', '{"bogus":{"length":"abc"},"session_key":{"a":1}}', 'Invalid input: expected string, received object at session_key', None),
    ('permissions_list_open', '{"limit":"EXEC","bogus":500}', None, '{}'),
    ('messages_read', '{"__proto__x":"allow-once","session_key":{"length":"0b"},"bogus":"EXEC","limit":4.0000000000000001}', 'Invalid input: expected string, received object at session_key\nToo small: expected unknown to be >=1 at session_key', None),
    ('events_poll', '{"__proto__x":[1],"after_cursor":1e400}', 'Invalid input: expected number, received Infinity at after_cursor', None),
    ('conversations_list', '{"channel":"plugin","includeLastMessage":0.5,"limit":-1e400,"bogus":9007199254740992,"includeDerivedTitles":-1,"limit":12345678901234567890123}', 'Too big: expected int to be <=9007199254740991 at limit\nToo big: expected number to be <=500 at limit\nInvalid input: expected boolean, received number at includeDerivedTitles\nInvalid input: expected boolean, received number at includeLastMessage', None),
    ('conversation_get', '{"limit":{"length":"1e0"},"__proto__x":1e400}', 'Invalid input: expected string, received undefined at session_key', None),
    ('events_wait', '{"__proto__x":{"length":"-Infinity"},"session_key":{"length":"-Infinity"},"timeout_ms":"allow-once","session_key":{},"limit":null,"bogus":-1e21}', 'Invalid input: expected string, received object at session_key\nInvalid input: expected number, received string at timeout_ms', None),
    ('permissions_respond', '{"id":-0,"__proto__x":null,"kind":"x"}', 'Invalid option: expected one of "exec"|"plugin" at kind\nInvalid input: expected string, received number at id\nInvalid option: expected one of "allow-once"|"allow-always"|"deny" at decision', None),
    ('conversation_get', '{}', 'Invalid input: expected string, received undefined at session_key', None),
    ('events_poll', '{"__proto__x":1e0,"after_cursor":-9007199254740993,"limit":"0","bogus":{}}', 'Too small: expected int to be >=-9007199254740991 at after_cursor\nToo small: expected number to be >=0 at after_cursor\nInvalid input: expected number, received string at limit', None),
    ('messages_read', '{"session_key":"EXEC","bogus":{"length":"1e0"}}', None, '{"session_key":"EXEC"}'),
    ('conversation_get', '{"session_key":"exec","limit":-1e400}', None, '{"session_key":"exec"}'),
    ('conversation_get', '{"session_key":9007199254740993,"bogus":"x","limit":{"length":" 1 "},"session_key":-1e21}', 'Invalid input: expected string, received number at session_key', None),
    ('events_wait', '{"session_key":1e21,"__proto__x":[[]]}', 'Invalid input: expected string, received number at session_key', None),
    ('conversation_get', '{"__proto__x":"exec","limit":{"a":1},"bogus":200,"session_key":1}', 'Invalid input: expected string, received number at session_key', None),
    ('events_poll', '{"session_key":"x","limit":1.5}', 'Invalid input: expected int, received number at limit', None),
    ('events_poll', '{"session_key":" ","limit":"\\ud800","after_cursor":1e21}', 'Too big: expected int to be <=9007199254740991 at after_cursor\nInvalid input: expected number, received string at limit', None),
]
# fmt: on

PREFIX = "MCP error -32602: Input validation error: Invalid arguments for tool "


def _validate(tool: str, text: str | None) -> tuple[str | None, str | None]:
    spec = TOOLS_BY_NAME[tool]
    try:
        data = validate_arguments(spec) if text is None else validate_arguments(spec, parse_json(text))
    except ValidationFailed as exc:
        return str(exc), None
    return None, js_dumps(data, None)


@pytest.mark.parametrize(("tool", "text", "issues", "accepted"), VERIFIED)
def test_validation_matches_the_reference_zod(
    tool: str, text: str | None, issues: str | None, accepted: str | None
) -> None:
    assert _validate(tool, text) == (issues, accepted)


@pytest.mark.parametrize(
    ("tool", "arguments", "issues"),
    [
        ("conversations_list", {"limit": 0}, "Too small: expected number to be >=1 at limit"),
        ("conversations_list", {"limit": 501}, "Too big: expected number to be <=500 at limit"),
        ("conversations_list", {"limit": 1.5}, "Invalid input: expected int, received number at limit"),
        (
            "conversations_list",
            {"limit": 1e21},
            "Too big: expected int to be <=9007199254740991 at limit\nToo big: expected number to be <=500 at limit",
        ),
        ("conversation_get", {"session_key": ""}, "Too small: expected string to have >=1 characters at session_key"),
        ("conversation_get", {}, "Invalid input: expected string, received undefined at session_key"),
        ("messages_read", {"session_key": "k", "limit": 201}, "Too big: expected number to be <=200 at limit"),
        ("events_poll", {"after_cursor": -1}, "Too small: expected number to be >=0 at after_cursor"),
        ("events_wait", {"timeout_ms": 0}, "Too small: expected number to be >=1 at timeout_ms"),
        (
            "messages_send",
            {"session_key": "k", "text": ""},
            "Too small: expected string to have >=1 characters at text",
        ),
        (
            "permissions_respond",
            {"kind": "exec", "id": "nope", "decision": "maybe"},
            'Invalid option: expected one of "allow-once"|"allow-always"|"deny" at decision',
        ),
        (
            "permissions_respond",
            {},
            'Invalid option: expected one of "exec"|"plugin" at kind\n'
            "Invalid input: expected string, received undefined at id\n"
            'Invalid option: expected one of "allow-once"|"allow-always"|"deny" at decision',
        ),
        ("events_poll", {"limit": True}, "Invalid input: expected number, received boolean at limit"),
        ("events_poll", {"session_key": None}, "Invalid input: expected string, received null at session_key"),
        (
            "conversations_list",
            {"includeLastMessage": "yes"},
            "Invalid input: expected boolean, received string at includeLastMessage",
        ),
    ],
)
def test_spec_examples_give_the_documented_issues(tool: str, arguments: dict[str, Any], issues: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        validate_arguments(TOOLS_BY_NAME[tool], arguments)
    assert str(caught.value) == issues
    assert invalid_arguments_text(tool, issues).startswith(PREFIX + tool + ": ")


def test_absent_arguments_are_one_issue_without_a_property() -> None:
    with pytest.raises(ValidationFailed, match=r"^Invalid input: expected object, received undefined$"):
        validate_arguments(TOOLS_BY_NAME["permissions_list_open"])


def test_accepted_arguments_keep_only_declared_keys_and_integral_numbers_as_int() -> None:
    data = validate_arguments(TOOLS_BY_NAME["events_poll"], {"limit": 2.0, "after_cursor": -0.0, "x": 1})
    assert data == {"limit": 2, "after_cursor": 0}
    assert all(type(value) is int for value in data.values())


# --- hostile input ---------------------------------------------------------------------------------------

_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -0.0,
    1,
    -1,
    1.5,
    2.0,
    200,
    201,
    500,
    501,
    300_000,
    300_001,
    1e21,
    -1e21,
    9007199254740991,
    9007199254740993,
    float("inf"),
    "",
    " ",
    "x",
    "agent:main:main",
    "agent:main:nope",
    "exec",
    "plugin",
    "deny",
    "allow-once",
    "allow-always",
    "maybe",
    "msg-1",
    "\u0000",
    "\ud800",
    "é" * 50,
    [],
    [1],
    {},
    {"length": 0},
    {"a": {"b": [1, {"c": None}]}},
    "yes abcde",
    "0x10",
]


def _random_value(rng: random.Random) -> Any:
    if rng.random() < 0.1:
        return "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(0, 8)))
    return rng.choice(_VALUES)


def _random_call(rng: random.Random) -> dict[str, Any]:
    roll = rng.random()
    if roll < 0.02:
        return {"name": rng.choice([5, None, ["x"], {"n": 1}])}
    name = rng.choice([tool.name for tool in TOOLS]) if roll > 0.05 else rng.choice(["nope", "", "EVENTS_POLL"])
    params: dict[str, Any] = {"name": name}
    if rng.random() < 0.04:
        params["arguments"] = rng.choice([None, [], "x", 3, True])
        return params
    if rng.random() < 0.05:
        return params
    keys = [p.name for p in TOOLS_BY_NAME[name].properties] if name in TOOLS_BY_NAME else []
    keys += ["bogus", "limit", "session_key", "timeout_ms", "kind"]
    params["arguments"] = {key: _random_value(rng) for key in keys if rng.random() < 0.5}
    return params


def _encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, allow_nan=True).replace("Infinity", "1e400").encode("utf-8", "surrogatepass") + b"\n"


@pytest.mark.asyncio
async def test_a_thousand_generated_calls_each_get_exactly_one_result_or_error(tmp_path: Path) -> None:
    rng = random.Random(20260906)
    gateway = seeded_gateway()
    gateway.handle("send", lambda params: {"runId": "r", "messageId": "m"})
    calls = {request_id: _random_call(rng) for request_id in range(1, 1201)}
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(30):
            await session.initialize()
            for request_id, params in calls.items():
                session.write_raw(
                    _encode({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
                )
                if rng.random() < 0.05:
                    session.write_raw(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))) + b"\n")
            answers: dict[int, dict[str, Any]] = {}
            waiting = {i for i, p in calls.items() if p.get("name") == "events_wait"}
            while len(answers) < len(calls) - len(waiting):
                message = await session.next_message()
                answers[message["id"]] = message
            await anyio.sleep(0.05)
            for message in map(json.loads, session.pending_lines()):
                answers[message["id"]] = message
            outstanding = [i for i in calls if i not in answers]
            assert set(outstanding) <= waiting
            for request_id in outstanding:
                session.notify("notifications/cancelled", {"requestId": request_id})
            ping = session.request("ping")
            assert await session.response(ping) == {"result": {}, "jsonrpc": "2.0", "id": ping}
            assert session.pending_lines() == []
    assert len(answers) + len(outstanding) == len(calls) >= 1000
    for request_id, message in answers.items():
        assert message["jsonrpc"] == "2.0" and message["id"] == request_id
        assert ("result" in message) != ("error" in message)
        if "result" in message:
            assert message["result"]["content"][0]["type"] == "text"
    errors = [m for m in answers.values() if "error" in m]
    assert all(m["error"]["code"] in (-32602, -32603) for m in errors)
    assert sum("result" in m and not m["result"].get("isError") for m in answers.values()) > 50
    assert session.exit_code == 0
