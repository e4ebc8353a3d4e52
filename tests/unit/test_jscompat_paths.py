"""``jscompat.paths``: Node's ``path.posix.normalize`` / ``resolve`` and ``isPathInside``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_mcp.jscompat.paths import is_path_inside, path_normalize, path_resolve


@pytest.mark.parametrize(
    ("path", "normalized"),
    [
        ("/foo/bar//baz/asdf/quux/..", "/foo/bar/baz/asdf"),
        ("", "."),
        ("./", "./"),
        ("a/..", "."),
        ("a/../", "./"),
        ("a/../..", ".."),
        ("/..", "/"),
        ("//a//b/", "/a/b/"),
        ("///a", "/a"),
        ("a/./b", "a/b"),
    ],
)
def test_path_normalize_matches_node(path: str, normalized: str) -> None:
    assert path_normalize(path) == normalized


@pytest.mark.parametrize(
    ("base", "path", "resolved"),
    [
        ("/foo/bar", "./baz", "/foo/bar/baz"),
        ("/foo/bar", "/tmp/file/", "/tmp/file"),
        ("/foo/bar", "../../..", "/"),
        ("/", "//x", "/x"),
        ("/a", "", "/a"),
    ],
)
def test_path_resolve_matches_node(base: str, path: str, resolved: str) -> None:
    assert path_resolve(base, path) == resolved


_SEGMENTS = st.lists(st.sampled_from(["a", "b", ".", "..", "", "c.d"]), max_size=8).map("/".join)


@settings(max_examples=300, deadline=None)
@given(st.booleans(), _SEGMENTS)
def test_normalize_is_idempotent_and_resolve_is_absolute_without_dots(absolute: bool, rest: str) -> None:
    path = ("/" if absolute else "") + rest
    once = path_normalize(path)
    assert path_normalize(once) == once
    resolved = path_resolve("/base/dir", path)
    assert resolved.startswith("/") and not resolved.startswith("//")
    assert "/./" not in resolved + "/" and "/../" not in resolved + "/"
    assert resolved == "/" or not resolved.endswith("/")


def test_is_path_inside_counts_the_root_itself_but_not_a_sibling_prefix() -> None:
    assert is_path_inside("/a", "/a")
    assert is_path_inside("/a", "/a/b/c")
    assert is_path_inside("/a/", "/a/b")
    assert not is_path_inside("/a", "/ab")
    assert not is_path_inside("/a/b", "/a")
