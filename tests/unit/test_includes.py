"""Config ``$include`` resolution: the pure walk/merge (``domain.includes``) and the filesystem loader
(``adapters.filesystem.includes``). Expected texts were observed with OpenClaw 2026.9.6 (``openclaw mcp
list`` printing ``<root>: <message>``) on the same file layouts."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.filesystem.includes import FileIncludeLoader
from openclaw_mcp.application.config_includes import IncludeAnswers, run_walk
from openclaw_mcp.domain.includes import (
    IncludeError,
    IncludeResolution,
    deep_merge,
    dotted_path,
    has_include_directive,
    include_walk,
    resolve_includes,
)
from openclaw_mcp.entrypoints.settings import include_roots
from openclaw_mcp.jscompat.jsjson import js_dumps, js_order

CFG = "/cfg/openclaw.json"


class DictLoader:
    """Include files held in memory: ``/cfg/<name>`` → parsed value; every call is recorded."""

    def __init__(self, files: dict[str, Any]) -> None:
        self.files = files
        self.calls: list[tuple[str, str, str]] = []

    def resolve(self, include_path: str, including_file: str) -> str:
        self.calls.append(("resolve", include_path, including_file))
        if include_path.startswith("../"):
            raise IncludeError(f"Include path escapes config directory: {include_path} (root: /cfg)")
        base = os.path.dirname(including_file)
        return os.path.normpath(os.path.join(base, include_path))

    def load(self, include_path: str, resolved_path: str) -> Any:
        self.calls.append(("load", include_path, resolved_path))
        if resolved_path not in self.files:
            raise IncludeError(f"Failed to read include file: {include_path} (resolved: {resolved_path})")
        return json.loads(json.dumps(self.files[resolved_path]))


def resolve(document: Any, files: dict[str, Any]) -> IncludeResolution:
    loader = DictLoader(files)
    return resolve_includes(document, CFG, loader.resolve, loader.load)


def error_of(document: Any, files: dict[str, Any]) -> str:
    with pytest.raises(IncludeError) as caught:
        resolve(document, files)
    return caught.value.message


# --- the walk and the merge -------------------------------------------------------------------------


def test_a_document_without_directives_is_returned_unchanged_without_loading() -> None:
    document = {"mcp": {"servers": {"a": {"command": "x", "args": ["$include"]}}}}
    loader = DictLoader({})
    resolution = resolve_includes(document, CFG, loader.resolve, loader.load)
    assert resolution.document is document
    assert resolution.sites == ()
    assert loader.calls == []
    assert not has_include_directive(document)


def test_a_string_directive_is_replaced_by_the_file_content() -> None:
    resolution = resolve(
        {"$include": "./servers.json5", "gateway": {"mode": "local"}},
        {"/cfg/servers.json5": {"mcp": {"servers": {"docs": {"command": "npx", "args": ["a"]}}}}},
    )
    assert resolution.document == {
        "mcp": {"servers": {"docs": {"command": "npx", "args": ["a"]}}},
        "gateway": {"mode": "local"},
    }
    assert resolution.files == ("/cfg/servers.json5",)
    assert [site.path for site in resolution.sites] == [()]


def test_array_entries_merge_in_order_with_arrays_concatenated_and_siblings_overriding() -> None:
    # Observed: `mcp list --json` on exactly this layout.
    resolution = resolve(
        {"mcp": {"servers": {"$include": ["./a.json", "./b.json"], "s": {"args": ["root"], "env": {"R": "1"}}}}},
        {
            "/cfg/a.json": {
                "s": {"command": "a", "args": ["a1"], "env": {"A": "1", "R": "a"}},
                "t": {"command": "t"},
                "10": {"command": "ten"},
            },
            "/cfg/b.json": {
                "s": {"args": ["b1"], "env": {"B": "2"}},
                "2": {"command": "two"},
                "t": {"command": "tb", "args": ["x"]},
            },
        },
    )
    servers = js_order(resolution.document)["mcp"]["servers"]
    assert js_dumps(servers, None) == (
        '{"2":{"command":"two"},"10":{"command":"ten"},'
        '"s":{"command":"a","args":["a1","b1","root"],"env":{"A":"1","R":"1","B":"2"}},'
        '"t":{"command":"tb","args":["x"]}}'
    )
    assert resolution.sites[0].path == ("mcp", "servers")
    assert resolution.sites[0].targets == ("/cfg/a.json", "/cfg/b.json")
    assert resolution.sites[0].has_siblings


def test_a_nested_include_is_resolved_relative_to_its_including_file() -> None:
    loader = DictLoader(
        {
            "/cfg/sub/a.json": {"$include": "./b.json", "mcp": {"servers": {"a": {"command": "a"}}}},
            "/cfg/sub/b.json": {"mcp": {"servers": {"b": {"command": "b"}}}},
        }
    )
    resolution = resolve_includes({"$include": "./sub/a.json"}, CFG, loader.resolve, loader.load)
    # Observed order in `mcp list --json`: b (included) before a (sibling).
    assert list(resolution.document["mcp"]["servers"]) == ["b", "a"]
    assert ("resolve", "./b.json", "/cfg/sub/a.json") in loader.calls


def test_an_include_inside_an_array_replaces_the_element() -> None:
    resolution = resolve(
        {"mcp": {"servers": {"s": {"command": "x", "args": [{"$include": "./v.json"}]}}}},
        {"/cfg/v.json": "fromfile"},
    )
    assert resolution.document["mcp"]["servers"]["s"]["args"] == ["fromfile"]
    assert resolution.sites[0].path == ("mcp", "servers", "s", "args", 0)


def test_the_same_file_may_be_included_at_several_places() -> None:
    resolution = resolve(
        {"a": {"$include": "./x.json"}, "b": {"$include": "./x.json"}},
        {"/cfg/x.json": {"q": 1}},
    )
    assert resolution.document == {"a": {"q": 1}, "b": {"q": 1}}
    assert resolution.files == ("/cfg/x.json",)


def test_merging_drops_prototype_keys_but_a_plain_include_keeps_them() -> None:
    # Observed: env {"constructor","prototype","K"} from an array include shows as {"K": "k"}.
    content = {"a": {"command": "y", "env": {"constructor": "c", "prototype": "p", "K": "k"}}}
    merged = resolve({"$include": ["./a.json"]}, {"/cfg/a.json": content})
    assert merged.document == {"a": {"command": "y", "env": {"K": "k"}}}
    plain = resolve({"$include": "./a.json"}, {"/cfg/a.json": content})
    assert plain.document == content


def test_deep_merge_replaces_mismatched_kinds_and_never_mutates_its_inputs() -> None:
    base = {"a": {"x": 1}, "b": [1], "c": {"k": 1}}
    override = {"a": 5, "b": [2], "c": [3], "d": {"__proto__": 1, "e": 2}}
    assert deep_merge(base, override) == {"a": 5, "b": [1, 2], "c": [3], "d": {"e": 2}}
    assert base == {"a": {"x": 1}, "b": [1], "c": {"k": 1}}
    assert deep_merge({}, [1]) == [1]
    assert deep_merge([1], [2]) == [1, 2]
    assert deep_merge({"a": 1}, None) is None


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (5, "Invalid $include value: expected string or array of strings, got number"),
        ({"a": 1}, "Invalid $include value: expected string or array of strings, got object"),
        (None, "Invalid $include value: expected string or array of strings, got object"),
        (True, "Invalid $include value: expected string or array of strings, got boolean"),
        (["./a.json", 5], "Invalid $include array item: expected string, got number"),
        ([{"x": 1}], "Invalid $include array item: expected string, got object"),
        ([None], "Invalid $include array item: expected string, got object"),
        ([False], "Invalid $include array item: expected string, got boolean"),
    ],
)
def test_a_directive_that_is_not_a_string_or_array_of_strings_is_refused(value: Any, message: str) -> None:
    assert error_of({"$include": value}, {"/cfg/a.json": {}}) == message


def test_array_items_are_checked_and_loaded_one_by_one() -> None:
    message = error_of({"$include": ["./missing.json", 5]}, {})
    assert message == "Failed to read include file: ./missing.json (resolved: /cfg/missing.json)"


@pytest.mark.parametrize("directive", ["./arr.json", ["./arr.json"]])
def test_sibling_keys_require_object_content(directive: Any) -> None:
    document = {"mcp": {"servers": {"$include": directive, "x": {"command": "a"}}}}
    message = error_of(document, {"/cfg/arr.json": [1, 2]})
    assert message == "Sibling keys require included content to be an object"


def test_non_object_content_without_siblings_is_taken_as_is() -> None:
    resolution = resolve({"$include": "./arr.json"}, {"/cfg/arr.json": [1]})
    assert resolution.document == [1]


def test_a_cycle_is_reported_with_the_whole_chain() -> None:
    message = error_of(
        {"$include": "./a.json"},
        {"/cfg/a.json": {"$include": "./b.json"}, "/cfg/b.json": {"$include": "./a.json"}},
    )
    assert message == ("Circular include detected: /cfg/openclaw.json -> /cfg/a.json -> /cfg/b.json -> /cfg/a.json")


def test_a_config_including_itself_is_a_cycle() -> None:
    message = error_of({"$include": "./openclaw.json"}, {})
    assert message == "Circular include detected: /cfg/openclaw.json -> /cfg/openclaw.json"


def _chain(levels: int, last: Any) -> dict[str, Any]:
    files: dict[str, Any] = {f"/cfg/d{i}.json": {"$include": f"./d{i + 1}.json"} for i in range(1, levels)}
    files[f"/cfg/d{levels}.json"] = last
    return files


def test_ten_levels_of_includes_are_allowed() -> None:
    resolution = resolve({"$include": "./d1.json"}, _chain(10, {"mcp": {"servers": {"deep": {"command": "x"}}}}))
    assert resolution.document == {"mcp": {"servers": {"deep": {"command": "x"}}}}
    assert len(resolution.files) == 10


def test_an_eleventh_level_is_refused_before_it_is_read() -> None:
    files = _chain(10, {"$include": "./d11.json"})  # d11.json does not exist: the depth check comes first
    assert error_of({"$include": "./d1.json"}, files) == "Maximum include depth (10) exceeded at: ./d11.json"


def test_a_cycle_at_the_depth_limit_is_reported_as_a_cycle() -> None:
    message = error_of({"$include": "./d1.json"}, _chain(10, {"$include": "./d1.json"}))
    assert message.startswith("Circular include detected: /cfg/openclaw.json -> /cfg/d1.json -> ")
    assert message.endswith(" -> /cfg/d10.json -> /cfg/d1.json")


def test_a_path_refused_by_the_loader_is_reported_before_the_depth_limit() -> None:
    message = error_of({"$include": "./d1.json"}, _chain(10, {"$include": "../x.json"}))
    assert message == "Include path escapes config directory: ../x.json (root: /cfg)"


def test_the_directive_of_an_object_is_resolved_before_its_siblings() -> None:
    message = error_of({"a": {"$include": "./missing1.json"}, "$include": "./missing2.json"}, {})
    assert message == "Failed to read include file: ./missing2.json (resolved: /cfg/missing2.json)"
    message = error_of({"a": {"$include": "./missing1.json"}, "b": {"$include": 5}}, {})
    assert message == "Failed to read include file: ./missing1.json (resolved: /cfg/missing1.json)"


def test_include_error_text_is_its_message() -> None:
    assert str(IncludeError("Include path must not contain null bytes")) == ("Include path must not contain null bytes")


def test_dotted_path_joins_parts_and_names_the_root() -> None:
    assert dotted_path(("mcp", "servers", "docs")) == "mcp.servers.docs"
    assert dotted_path(("a", 0)) == "a.0"
    assert dotted_path(()) == "<root>"


# --- what an authored-root write can express (D7) -------------------------------------------------


@pytest.mark.parametrize(
    ("document", "files", "conflict"),
    [
        # An unrelated top-level include (observed: survives verbatim in the written root file).
        (
            {"$include": "./gw.json5", "mcp": {"servers": {"docs": {"command": "npx"}}}},
            {"/cfg/gw.json5": {"gateway": {"mode": "local"}}},
            None,
        ),
        # A root-level include that only supplies another part of `mcp` (the reference writes the root).
        (
            {"$include": "./m.json", "mcp": {"servers": {"docs": {"command": "npx"}}}},
            {"/cfg/m.json": {"mcp": {"sessionIdleTtlMs": 5000}}},
            None,
        ),
        # An include inside another server.
        (
            {"mcp": {"servers": {"other": {"$include": "./o.json"}, "docs": {"command": "npx"}}}},
            {"/cfg/o.json": {"command": "o"}},
            None,
        ),
        # A root-level include supplying servers.
        (
            {"$include": "./m.json5", "gateway": {"mode": "local"}},
            {"/cfg/m.json5": {"mcp": {"servers": {"docs": {"command": "npx"}}}}},
            ("mcp", "servers"),
        ),
        # `mcp` itself included.
        (
            {"mcp": {"$include": "./mcp.json"}},
            {"/cfg/mcp.json": {"servers": {"docs": {"command": "npx"}}}},
            ("mcp",),
        ),
        # `mcp.servers` included, with or without local siblings.
        (
            {"mcp": {"servers": {"$include": "./s.json", "docs": {"command": "l"}}}},
            {"/cfg/s.json": {"fromfile": {"command": "f"}}},
            ("mcp", "servers"),
        ),
        # The changed server included.
        (
            {"mcp": {"servers": {"docs": {"$include": "./docs.json"}, "other": {"command": "o"}}}},
            {"/cfg/docs.json": {"command": "npx"}},
            ("mcp", "servers", "docs"),
        ),
        # An include inside the changed server.
        (
            {"mcp": {"servers": {"docs": {"command": "npx", "env": {"$include": "./env.json"}}}}},
            {"/cfg/env.json": {"K": "v"}},
            ("mcp", "servers", "docs"),
        ),
    ],
)
def test_write_conflict_names_the_first_included_path_a_root_write_would_lose(
    document: dict[str, Any], files: dict[str, Any], conflict: tuple[str, ...] | None
) -> None:
    assert resolve(document, files).write_conflict("docs") == conflict


def test_provenance_queries_follow_included_content() -> None:
    resolution = resolve(
        {"$include": "./m.json", "mcp": {"servers": {"docs": {"command": "npx"}}}},
        {"/cfg/m.json": {"mcp": {"sessionIdleTtlMs": 5000}, "list": [{"a": 1}]}},
    )
    assert resolution.provided_by_include(("mcp",))
    assert resolution.provided_by_include(("mcp", "sessionIdleTtlMs"))
    assert resolution.provided_by_include(("list", 0, "a"))
    assert not resolution.provided_by_include(("mcp", "servers"))
    assert not resolution.provided_by_include(("list", 1))
    assert resolution.has_directive_within(())
    assert not resolution.has_directive_within(("mcp",))


# --- the filesystem loader ---------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def fs_resolve(config: Path, document: Any, roots: tuple[str, ...] = ()) -> IncludeResolution:
    answers = IncludeAnswers(FileIncludeLoader(str(config), roots))  # reads in worker threads
    return anyio.run(run_walk, include_walk(document, str(config)), answers)


def fs_error(config: Path, document: Any, roots: tuple[str, ...] = ()) -> str:
    with pytest.raises(IncludeError) as caught:
        fs_resolve(config, document, roots)
    return caught.value.message


@pytest.fixture
def cfg(tmp_path: Path) -> Path:
    directory = tmp_path / "state"
    directory.mkdir()
    return directory / "openclaw.json"


def test_files_are_read_as_json5_relative_to_the_including_file(cfg: Path) -> None:
    write(cfg.parent / "sub" / "a.json5", '// comment\n{$include: "./b.json", mcp: {servers: {a: {command: "a"}}}}')
    write(cfg.parent / "sub" / "b.json", '{"mcp": {"servers": {"b": {"command": "b"}}}}')
    resolution = fs_resolve(cfg, {"$include": "./sub/../sub/a.json5"})
    assert resolution.document == {"mcp": {"servers": {"b": {"command": "b"}, "a": {"command": "a"}}}}
    assert resolution.files == (str(cfg.parent / "sub" / "a.json5"), str(cfg.parent / "sub" / "b.json"))


def test_a_missing_file_cannot_be_read(cfg: Path) -> None:
    assert fs_error(cfg, {"$include": "./nope.json5"}) == (
        f"Failed to read include file: ./nope.json5 (resolved: {cfg.parent}/nope.json5)"
    )


def test_an_environment_reference_in_the_path_is_not_substituted(cfg: Path) -> None:
    write(cfg.parent / "real.json", "{}")
    assert fs_error(cfg, {"$include": "./${INCF}"}) == (
        f"Failed to read include file: ./${{INCF}} (resolved: {cfg.parent}/${{INCF}})"
    )


def test_a_file_that_does_not_parse_is_reported(cfg: Path) -> None:
    write(cfg.parent / "bad.json5", "{a:1,,}\n")
    write(cfg.parent / "e.json", "")
    assert fs_error(cfg, {"$include": "./bad.json5"}) == (
        f"Failed to parse include file: ./bad.json5 (resolved: {cfg.parent}/bad.json5)"
    )
    assert fs_error(cfg, {"$include": "./e.json"}) == (
        f"Failed to parse include file: ./e.json (resolved: {cfg.parent}/e.json)"
    )


@pytest.mark.parametrize("directive", ["../outside.json", "/etc/hostname", "./sub/../../x.json"])
def test_paths_outside_the_config_directory_escape(cfg: Path, directive: str) -> None:
    assert fs_error(cfg, {"$include": directive}) == (
        f"Include path escapes config directory: {directive} (root: {cfg.parent})"
    )


def test_a_nested_escape_names_the_config_directory(cfg: Path) -> None:
    write(cfg.parent / "sub" / "a.json", '{"$include": "../../outside.json"}')
    assert fs_error(cfg, {"$include": "./sub/a.json"}) == (
        f"Include path escapes config directory: ../../outside.json (root: {cfg.parent})"
    )


def test_a_symlink_leaving_the_config_directory_is_refused(cfg: Path, tmp_path: Path) -> None:
    outside = write(tmp_path / "outside.json", "{}")
    (cfg.parent / "link.json").symlink_to(outside)
    assert fs_error(cfg, {"$include": "./link.json"}) == (
        f"Include path resolves outside config directory (symlink): ./link.json (root: {cfg.parent})"
    )


def test_a_symlink_inside_the_config_directory_is_followed(cfg: Path) -> None:
    write(cfg.parent / "real.json", '{"mcp":{"servers":{"s":{"command":"x"}}}}')
    (cfg.parent / "link.json").symlink_to("real.json")
    resolution = fs_resolve(cfg, {"$include": "./link.json"})
    assert resolution.document == {"mcp": {"servers": {"s": {"command": "x"}}}}
    assert resolution.files == (str(cfg.parent / "link.json"),)


def test_a_dangling_symlink_cannot_be_read(cfg: Path) -> None:
    (cfg.parent / "link.json").symlink_to("nothere.json")
    assert fs_error(cfg, {"$include": "./link.json"}) == (
        f"Failed to read include file: ./link.json (resolved: {cfg.parent}/link.json)"
    )


def test_a_symlink_loop_has_no_real_path(cfg: Path) -> None:
    (cfg.parent / "l1.json").symlink_to("l2.json")
    (cfg.parent / "l2.json").symlink_to("l1.json")
    assert fs_error(cfg, {"$include": "./l1.json"}) == (
        f"Failed to resolve include file realpath: ./l1.json (resolved: {cfg.parent}/l1.json)"
    )


SECURITY = "Include file failed security checks (regular file, max 2097152 bytes, no hardlinks): "


def test_a_hard_linked_file_fails_the_security_checks(cfg: Path) -> None:
    first = write(cfg.parent / "a.json", "{}")
    os.link(first, cfg.parent / "b.json")
    assert fs_error(cfg, {"$include": "./a.json"}) == SECURITY + "./a.json"


def test_a_directory_fails_the_security_checks(cfg: Path) -> None:
    (cfg.parent / "sub").mkdir()
    assert fs_error(cfg, {"$include": "./sub"}) == SECURITY + "./sub"
    assert fs_error(cfg, {"$include": ""}) == SECURITY  # "" is the config directory itself


def test_files_up_to_two_mebibytes_are_read_and_larger_ones_refused(cfg: Path) -> None:
    limit = 2 * 1024 * 1024
    write(cfg.parent / "exact.json", '{"x":"' + "a" * (limit - 8) + '"}')
    assert fs_resolve(cfg, {"$include": "./exact.json"}).document == {"x": "a" * (limit - 8)}
    write(cfg.parent / "big.json", '{"x":"' + "a" * (limit - 7) + '"}')
    assert fs_error(cfg, {"$include": "./big.json"}) == SECURITY + "./big.json"


def test_a_null_byte_or_an_overlong_path_is_refused(cfg: Path) -> None:
    assert fs_error(cfg, {"$include": "./a\0.json"}) == "Include path must not contain null bytes"
    assert fs_error(cfg, {"$include": "a" * 4096}) == "Include path exceeds maximum length (4096 characters)"
    long_name = "/".join(["d" * 200] * 20) + "/" + "e" * 70  # 4090 characters, longer once resolved
    assert fs_error(cfg, {"$include": long_name}) == ("Resolved include path exceeds maximum length (4096 characters)")


def test_a_circular_include_names_absolute_paths(cfg: Path) -> None:
    write(cfg.parent / "a.json", '{"$include": "./b.json"}')
    write(cfg.parent / "b.json", '{"$include": "./a.json"}')
    d = cfg.parent
    assert fs_error(cfg, {"$include": "./a.json"}) == (
        f"Circular include detected: {d}/openclaw.json -> {d}/a.json -> {d}/b.json -> {d}/a.json"
    )


def test_allowed_roots_admit_files_outside_the_config_directory(cfg: Path, tmp_path: Path) -> None:
    ext = write(tmp_path / "extroot" / "ext.json", '{"mcp":{"servers":{"ext":{"command":"x"}}}}')
    document = {"$include": str(ext)}
    assert fs_error(cfg, document) == f"Include path escapes config directory: {ext} (root: {cfg.parent})"
    resolution = fs_resolve(cfg, document, ("relative/ignored", str(tmp_path / "extroot") + "/"))
    assert resolution.document == {"mcp": {"servers": {"ext": {"command": "x"}}}}


def test_include_roots_split_on_the_path_separator_and_expand_the_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home), "OPENCLAW_INCLUDE_ROOTS": " /nonexist: /tmp/inc/extroot/ ::~/../x:/nonexist"}
    assert include_roots(env) == ["/nonexist", "/tmp/inc/extroot", str(tmp_path / "x")]
    assert include_roots({"OPENCLAW_INCLUDE_ROOTS": "/x;/y"}) == ["/x;/y"]
    assert include_roots({"OPENCLAW_INCLUDE_ROOTS": "   "}) == []
    assert include_roots({}) == []
