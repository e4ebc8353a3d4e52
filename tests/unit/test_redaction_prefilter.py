"""The redaction prefilter's ASCII route (issue 33) finds a match exactly where the single case-insensitive
pattern does: a text it lets through unchanged is one the pattern would let through."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from openclaw_mcp.domain.redaction import _text

_ALTERNATIVES = [part for source in _text._PREFILTER_SOURCES for part in _text._alternatives(source)]
_WORDS = [word for word in map(_text._literal, _ALTERNATIVES) if word is not None]
_PIECES = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from(
        ["ghp_", "sk_live_", "dop_v1_", "dp.ct.", "dapi9", "pat-eu1-", " am_", "AKIA1", "bot1234567:", "%4A=",
         "://u:p@", "Bearer ", "pass =", "_passwd:", "jwt=", "sig =", "security-code", "xoxb-", "1234567:" + "a" * 20]
    ),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzKSI0123456789 -_=:/.%@\t\u212a\u017f\u0130\u0131\u00e9", max_size=6),
)  # fmt: skip


def _recased(text: str, flips: list[bool]) -> str:
    return "".join(c.swapcase() if flip else c for c, flip in zip(text, flips + [False] * len(text), strict=False))


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=6), st.lists(st.booleans(), max_size=40))
@example(["PRIVATE KEY"], [])
@example(["hooks.slack.com"], [])
@example(["hooksxslack.com"], [])
@example(["\u212aEY"], [])
def test_the_ascii_route_agrees_with_the_single_pattern(pieces: list[str], flips: list[bool]) -> None:
    text = _recased("".join(pieces), flips)
    assert _text._prefilter_matches(text) == (_text._PREFILTER().search(text) is not None)


def test_the_alternatives_rejoin_to_the_pattern() -> None:
    for source in _text._PREFILTER_SOURCES:
        assert "|".join(_text._alternatives(source)) == source
    assert "|".join(_ALTERNATIVES) == _text._PREFILTER().pattern


def test_only_plain_text_alternatives_take_the_prefix_tree() -> None:
    assert _text._literal("hooks\\.slack\\.com") == "hooks.slack.com"
    assert _text._literal("PRIVATE KEY") == "PRIVATE KEY"
    assert _text._literal("gh[opsur]_") is None
    assert _text._literal("pat-(?:eu|na)1-") is None
    assert len(_WORDS) > 50
