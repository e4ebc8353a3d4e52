# ruff: noqa: E501  (the routes are JavaScript snippets, kept one statement a line where possible)
"""Issue 32, defect 2: with ``blockDescendantFrames`` no route yields a nested browsing context or a working
``RTCPeerConnection`` in any realm the app can reach (spec mcp-apps §7.5; decision: stricter than the reference).

Real components: the sandbox listener of ``openclaw mcp ui`` (``create_sandbox_app``, served by uvicorn on
loopback as ``http://localhost:<port>``), a host page on ``http://127.0.0.1:<port>`` that embeds its proxy the way
the settings page does, headless Chromium, and one loopback UDP listener per route that must receive nothing
(every route tries to send a STUN binding request to it from whatever realm it reaches). After each route no
frame may exist below the app's frame."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from openclaw_mcp.entrypoints.ui.sandbox import create_sandbox_app, sandbox_url_path
from tests.fixtures.ports import free_port

try:
    from playwright.sync_api import Browser, Frame, Page
except ImportError as exc:  # a missing tool skips locally and fails under CI
    if os.environ.get("CI"):
        raise
    pytest.skip(f"playwright is not installed ({exc})", allow_module_level=True)

REFUSED = "sandbox descendant browsing contexts are disabled"
BLOCK = {"blockDescendantFrames": True}

HOST_PAGE = """<!doctype html><meta charset="utf-8"><title>host</title><body><script>
"use strict";
window.reports = [];
window.render = function (sandboxUrl, html, timeoutMs) {
  document.body.replaceChildren();
  window.reports = [];
  return new Promise(function (resolve) {
    var frame = document.createElement("iframe");
    frame.referrerPolicy = "origin";
    frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
    frame.className = "outer";
    var origin = new URL(sandboxUrl).origin;
    var timer = setTimeout(function () { resolve("timeout"); }, timeoutMs || 8000);
    window.onmessage = function (event) {
      if (event.source !== frame.contentWindow || event.origin !== origin) return;
      var m = event.data || {};
      if (m.method === "ui/notifications/sandbox-proxy-ready") {
        frame.contentWindow.postMessage({jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready",
          params: {html: html, renderId: "r1"}}, origin);
      } else if (m.type === "route") {
        window.reports.push(m);
        if (m.done) { clearTimeout(timer); resolve(m); }
      }
    };
    frame.src = sandboxUrl;
    document.body.append(frame);
  });
};
</script>"""

# the page every route builds into a nested realm: it sends STUN from there
STUN = """async function stun(win, port) {
  var PC = win.RTCPeerConnection || win.webkitRTCPeerConnection;
  var pc = new PC({iceServers: [{urls: "stun:127.0.0.1:" + port}]});
  pc.createDataChannel("x");
  await pc.setLocalDescription(await pc.createOffer());
  return "stun-sent";
}"""

APP = """<!doctype html>
<html><head><meta charset="utf-8"><title>route</title></head><body><div id="root">app</div>
<script>
"use strict";
var PORT = __PORT__;
__STUN__
var FRAME_DOC = "<script>(" + stun.toString() + ")(window, " + PORT + ")<" + "/script>";
var FRAME_DOC_ATTR = FRAME_DOC.replace(/"/g, "&quot;");
function tryStun(win) { try { return stun(win, PORT); } catch (e) { return "stun-failed: " + e.message; } }
function report(outcome, done) {
  parent.postMessage({type: "route", outcome: String(outcome), done: !!done, frames: window.length}, "*");
}
window.addEventListener("error", function (event) { report("error: " + event.message, false); });
(async function () {
  var outcome;
  try {
    outcome = await (async function () { __ROUTE__ })();
  } catch (e) {
    outcome = "threw: " + (e && e.message);
  }
  await new Promise(function (r) { setTimeout(r, 400); });
  report(outcome, true);
})();
</script>
</body></html>"""

# each route: JavaScript run in the app's realm; FRAME_DOC / FRAME_DOC_ATTR is a document that sends STUN
ROUTES: dict[str, str] = {
    "createElement": """var f = document.createElement("iframe"); f.srcdoc = FRAME_DOC; document.body.append(f);
        return tryStun(f.contentWindow);""",
    "createElementNS": """var f = document.createElementNS("http://www.w3.org/1999/xhtml", "x:iframe");
        f.srcdoc = FRAME_DOC; document.body.appendChild(f); return tryStun(f.contentWindow);""",
    "own realm": """return tryStun(window);""",
    "own realm via prototype chains": """
        var found = null;
        for (var k of Object.getOwnPropertyNames(window)) {
          if (/^(webkit)?RTC/.test(k) && typeof window[k] === "function") found = k;
        }
        if (found) throw new Error("constructor left: " + found);
        return "none";""",
    "innerHTML": """document.body.innerHTML = '<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>';
        return tryStun(window[0]);""",
    "outerHTML": """document.getElementById("root").outerHTML = '<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>';
        return tryStun(window[0]);""",
    "insertAdjacentHTML": """document.body.insertAdjacentHTML("beforeend", '<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>');
        return tryStun(window[0]);""",
    "shadow innerHTML": """var r = document.body.attachShadow({mode: "closed"});
        r.innerHTML = '<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>'; return "set";""",
    "parseHTMLUnsafe": """var d = Document.parseHTMLUnsafe('<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>');
        document.body.append(d.body.firstChild); return tryStun(window[0]);""",
    "parseHTMLUnsafe split markup": """var d = Document.parseHTMLUnsafe("<ifr" + "ame></ifr" + "ame>");
        var f = d.body.firstChild; if (f) f.srcdoc = FRAME_DOC; document.body.append(f); return tryStun(window[0]);""",
    "declarative closed shadow root": """var d = Document.parseHTMLUnsafe('<div><template shadowrootmode="closed"><iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe></template></div>');
        document.body.append(d.body.firstChild); return "appended";""",
    "setHTMLUnsafe": """document.body.setHTMLUnsafe('<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>'); return tryStun(window[0]);""",
    "setHTMLUnsafe declarative shadow": """document.body.setHTMLUnsafe('<div><template shadowrootmode="closed"><iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe></template></div>');
        return "set";""",
    "DOMParser adoptNode": """var d = new DOMParser().parseFromString('<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>', "text/html");
        document.body.appendChild(document.adoptNode(d.body.firstChild)); return tryStun(window[0]);""",
    "DOMParser importNode": """var d = new DOMParser().parseFromString("<iframe></iframe>", "text/html");
        var f = document.importNode(d.body.firstChild, true); f.srcdoc = FRAME_DOC; document.body.append(f);
        return tryStun(window[0]);""",
    "XML entity adoptNode": """var xml = '<!DOCTYPE x [<!ENTITY e "&#60;iframe xmlns=&#34;http://www.w3.org/1999/xhtml&#34;/&#62;">]><x>&e;</x>';
        var d = new DOMParser().parseFromString(xml, "application/xml");
        var f = d.documentElement.firstChild; if (!f || f.localName !== "iframe") return "no xml frame: " + (f && f.localName);
        f.setAttribute("srcdoc", FRAME_DOC); document.body.append(document.adoptNode(f)); return tryStun(window[0]);""",
    "XHTML prefix markup": """var d = new DOMParser().parseFromString('<x xmlns:h="http://www.w3.org/1999/xhtml"><h:iframe/></x>', "application/xml");
        var f = d.documentElement.firstChild; f.setAttribute("srcdoc", FRAME_DOC); document.body.append(f);
        return tryStun(window[0]);""",
    "cloneNode of a frame from another document": """var d = new DOMParser().parseFromString('<x xmlns="http://www.w3.org/1999/xhtml">&#60;</x>', "application/xml");
        var xml = '<!DOCTYPE x [<!ENTITY e "&#60;iframe xmlns=&#34;http://www.w3.org/1999/xhtml&#34;/&#62;">]><x>&e;</x>';
        var f = new DOMParser().parseFromString(xml, "application/xml").documentElement.firstChild.cloneNode(true);
        f.setAttribute("srcdoc", FRAME_DOC); document.body.insertBefore(f, null); return tryStun(window[0]);""",
    "template content": """var t = document.createElement("template"); t.innerHTML = "<div></div>";
        var x = new DOMParser().parseFromString('<!DOCTYPE x [<!ENTITY e "&#60;iframe xmlns=&#34;http://www.w3.org/1999/xhtml&#34;/&#62;">]><x>&e;</x>', "application/xml");
        t.content.firstChild.appendChild(t.content.ownerDocument.adoptNode(x.documentElement.firstChild));
        document.body.append(document.importNode(t.content, true)); return tryStun(window[0]);""",
    "template innerHTML": """var t = document.createElement("template"); t.innerHTML = '<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>';
        document.body.append(t.content.cloneNode(true)); return tryStun(window[0]);""",
    "createContextualFragment": """var frag = document.createRange().createContextualFragment('<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>');
        document.body.append(frag); return tryStun(window[0]);""",
    "Range insertNode": """var x = new DOMParser().parseFromString('<!DOCTYPE x [<!ENTITY e "&#60;iframe xmlns=&#34;http://www.w3.org/1999/xhtml&#34;/&#62;">]><x>&e;</x>', "application/xml");
        var f = x.documentElement.firstChild; f.setAttribute("srcdoc", FRAME_DOC);
        var r = document.createRange(); r.selectNodeContents(document.body); r.insertNode(f); return tryStun(window[0]);""",
    "replaceWith before after moveBefore": """var x = new DOMParser().parseFromString('<!DOCTYPE x [<!ENTITY e "&#60;iframe xmlns=&#34;http://www.w3.org/1999/xhtml&#34;/&#62;">]><x>&e;&e;&e;&e;</x>', "application/xml");
        var kids = x.documentElement.childNodes, root = document.getElementById("root"), out = [];
        var ops = [function (n) { root.before(n); }, function (n) { root.after(n); }, function (n) { root.firstChild.replaceWith(n); },
                   function (n) { document.body.moveBefore(n, null); }];
        for (var i = 0; i < ops.length; i++) { try { ops[i](kids[0]); out.push("ok"); } catch (e) { out.push(e.message); } }
        return out.join("|") + tryStun(window[0] || {});""",
    "document.write after load": """document.open(); document.write('<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>'); document.close();
        return tryStun(window[0]);""",
    "document.write split": """document.open(); document.write("<ifr"); document.write('ame srcdoc="' + FRAME_DOC_ATTR + '"></iframe>');
        document.close(); return tryStun(window[0]);""",
    "document.write frameset": """document.open(); document.write('<frameset><frame srcdoc="' + FRAME_DOC_ATTR + '"></frameset>'); document.close();
        return tryStun(window[0]);""",
    "object data": """document.body.innerHTML = '<object data="data:text/html,' + encodeURIComponent(FRAME_DOC) + '"></object>';
        return tryStun(window[0]);""",
    "embed": """var e = document.createElement("embed"); e.src = "data:text/html," + encodeURIComponent(FRAME_DOC);
        document.body.append(e); return "embedded";""",
    "frame element": """var f = document.createElement("frame"); document.body.append(f); return tryStun(window[0]);""",
    "fencedframe": """var f = document.createElement("fencedframe"); document.body.append(f); return "appended";""",
    "customized built-in": """class F extends HTMLIFrameElement {}
        customElements.define("x-frame", F, {extends: "iframe"}); var f = new F(); f.srcdoc = FRAME_DOC;
        document.body.append(f); return tryStun(f.contentWindow);""",
    "customized built-in via parser element": """class F extends HTMLIFrameElement {}
        try { customElements.define("x-frame2", F, {extends: "iframe"}); } catch (e) {}
        var f = Reflect.construct(HTMLIFrameElement, [], F); document.body.append(f); return tryStun(f.contentWindow);""",
    "XSLT transformToFragment": """var xsl = new DOMParser().parseFromString(
          '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><xsl:template match="/">' +
          '<xsl:element name="{concat(\\'ifr\\', \\'ame\\')}" namespace="http://www.w3.org/1999/xhtml"><xsl:attribute name="srcdoc">' +
          FRAME_DOC.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;") +
          '</xsl:attribute></xsl:element></xsl:template></xsl:stylesheet>', "application/xml");
        var p = new XSLTProcessor(); p.importStylesheet(xsl);
        var frag = p.transformToFragment(new DOMParser().parseFromString("<x/>", "application/xml"), document);
        document.body.append(frag); return tryStun(window[0]);""",
    "XSLT transformToDocument": """var xsl = new DOMParser().parseFromString(
          '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><xsl:template match="/">' +
          '<div xmlns="http://www.w3.org/1999/xhtml"><xsl:element name="{concat(\\'ifr\\', \\'ame\\')}" namespace="http://www.w3.org/1999/xhtml"/></div>' +
          '</xsl:template></xsl:stylesheet>', "application/xml");
        var p = new XSLTProcessor(); p.importStylesheet(xsl);
        var d = p.transformToDocument(new DOMParser().parseFromString("<x/>", "application/xml"));
        document.body.append(document.adoptNode(d.documentElement)); return tryStun(window[0]);""",
    "execCommand insertHTML": """document.designMode = "on"; document.body.focus();
        var r = document.createRange(); r.selectNodeContents(document.body); getSelection().removeAllRanges(); getSelection().addRange(r);
        document.execCommand("insertHTML", false, '<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>'); return tryStun(window[0]);""",
    "document.body frameset": """var d = new DOMParser().parseFromString("<frameset><frame></frameset>", "text/html");
        document.body = document.adoptNode(d.body); return tryStun(window[0]);""",
    "svg foreignObject": """document.body.innerHTML = '<svg><foreignObject><iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe></foreignObject></svg>';
        return tryStun(window[0]);""",
    "window.open": """var w = window.open("about:blank"); if (!w) return "no window"; return tryStun(w);""",
    "document.open three arguments": """var w = document.open("about:blank", "_blank", ""); return tryStun(w);""",
    "self navigation to data": """location.href = "data:text/html," + encodeURIComponent(FRAME_DOC); return "navigating";""",
    "javascript URL document": """location.href = "javascript:" + encodeURIComponent(JSON.stringify("<body>" + FRAME_DOC + "</body>"));
        return "navigating";""",
    "javascript URL link click": """var a = document.createElement("a");
        a.href = "javascript:" + encodeURIComponent(JSON.stringify('<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>' + FRAME_DOC));
        document.body.append(a); a.click(); return "clicked";""",
    "meta refresh": """document.head.innerHTML = '<meta http-equiv="refresh" content="0;url=data:text/html,' + encodeURIComponent(FRAME_DOC) + '">';
        return "refresh";""",
    "trusted types named policy": """var p = trustedTypes.createPolicy("mine", {createHTML: function (s) { return s; }});
        document.body.innerHTML = p.createHTML('<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>'); return tryStun(window[0]);""",
    "toString changes between check and use": """var n = 0; var v = {toString: function () { return n++ ? '<iframe srcdoc="' + FRAME_DOC_ATTR + '"></iframe>' : "<b>x</b>"; }};
        document.body.innerHTML = v; return tryStun(window[0]);""",
    "blinded prototypes": """Object.defineProperty(NodeList.prototype, "length", {get: function () { return 0; }});
        Object.defineProperty(Element.prototype, "localName", {get: function () { return "div"; }});
        Element.prototype.querySelectorAll = function () { return []; };
        var d = new DOMParser().parseFromString('<!DOCTYPE x [<!ENTITY e "&#60;iframe xmlns=&#34;http://www.w3.org/1999/xhtml&#34;/&#62;">]><x>&e;</x>', "application/xml");
        var f = d.documentElement.firstChild; f.setAttribute("srcdoc", FRAME_DOC); document.body.append(f); return tryStun(window[0]);""",
    "closed shadow root holding a foreign frame": """var host = document.createElement("div"); var r = host.attachShadow({mode: "closed"});
        var d = new DOMParser().parseFromString('<!DOCTYPE x [<!ENTITY e "&#60;iframe xmlns=&#34;http://www.w3.org/1999/xhtml&#34;/&#62;">]><x>&e;</x>', "application/xml");
        try { r.append(d.documentElement.firstChild); } catch (e) {}
        document.body.append(host); return "host appended";""",
}

# routes that live in the app's own source (run by the parser, not by a script afterwards)
SOURCE_ROUTES: dict[str, str] = {
    "write split across the source": (
        '<!doctype html><body><script>document.write("<ifr")</script>ame srcdoc="__FRAME_ATTR__"></iframe></body>'
    ),
    "write reopens the tokenizer (svg breakout)": (
        "<!doctype html><body><script>document.write('<svg>')</script>"
        '<style><p><iframe srcdoc="__FRAME_ATTR__"></iframe></style></body>'
    ),
    "script before a quoted doctype": (
        '<!DOCTYPE html "><script>(__STUN__)(window, __PORT__).catch(function(){})</script><!-- "><body>x</body>'
    ),
    "script after an abrupt comment": (
        "<!--><script>(__STUN__)(window, __PORT__).catch(function(){})</script>--><!doctype html><body>x</body>"
    ),
    "markup frame in the html": '<!doctype html><body><iframe srcdoc="__FRAME_ATTR__"></iframe></body>',
}


class _Host(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = HOST_PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class Rig:
    def __init__(self, page: Page, host_url: str, sandbox_url: str) -> None:
        self.page = page
        self.host_url = host_url
        self.sandbox_url = sandbox_url
        self.errors: list[str] = []


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, str]]:
    import uvicorn

    host = ThreadingHTTPServer(("127.0.0.1", 0), _Host)
    threading.Thread(target=host.serve_forever, daemon=True).start()
    port = free_port()
    config = uvicorn.Config(create_sandbox_app(), host="127.0.0.1", port=port, log_config=None, lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the sandbox listener did not start"
    try:
        yield f"http://127.0.0.1:{host.server_address[1]}/", f"http://localhost:{port}{sandbox_url_path(BLOCK)}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        host.shutdown()
        host.server_close()


@pytest.fixture
def rig(browser: Browser, servers: tuple[str, str]) -> Iterator[Rig]:
    context = browser.new_context()
    page = context.new_page()
    rig = Rig(page, *servers)
    page.on("pageerror", lambda error: rig.errors.append(str(error)))
    page.on("console", lambda message: rig.errors.append(message.text))
    page.goto(rig.host_url)
    try:
        yield rig
    finally:
        context.close()


def udp_listener() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.setblocking(False)
    return sock


def received(sock: socket.socket) -> bytes:
    try:
        return sock.recv(4096)
    except BlockingIOError:
        return b""


def app_frame(page: Page) -> Frame | None:
    outer = next((frame for frame in page.frames if "/mcp-app-sandbox" in frame.url), None)
    return outer.child_frames[0] if outer is not None and outer.child_frames else None


def nested_frames(page: Page) -> list[str]:
    """Every frame below the app's frame (in any tree, shadow roots included)."""
    app = app_frame(page)
    found: list[str] = []
    stack = list(app.child_frames) if app is not None else []
    while stack:
        frame = stack.pop()
        found.append(frame.url)
        stack.extend(frame.child_frames)
    return found


def render(rig: Rig, html: str, timeout_ms: int = 8000) -> Any:
    return rig.page.evaluate("([url, html, ms]) => window.render(url, html, ms)", [rig.sandbox_url, html, timeout_ms])


def app_html(route: str, port: int) -> str:
    return APP.replace("__STUN__", STUN).replace("__PORT__", str(port)).replace("__ROUTE__", route)


def frame_attr(port: int) -> str:
    inner = f"<script>({STUN})(window, {port})</script>"
    return inner.replace("&", "&amp;").replace('"', "&quot;")


def source_html(template: str, port: int) -> str:
    return template.replace("__FRAME_ATTR__", frame_attr(port)).replace("__STUN__", STUN).replace("__PORT__", str(port))


def run_routes(rig: Rig, routes: dict[str, str], build: Any, timeout_ms: int = 8000) -> None:
    listeners = {name: udp_listener() for name in routes}
    problems: dict[str, str] = {}
    outcomes: dict[str, Any] = {}
    try:
        for name, route in routes.items():
            outcome = render(rig, build(route, listeners[name].getsockname()[1]), timeout_ms)
            outcomes[name] = outcome
            rig.page.wait_for_timeout(150)
            frames = nested_frames(rig.page)
            if frames:
                problems[name] = f"nested frames {frames} (outcome {outcome!r})"
        rig.page.wait_for_timeout(1500)  # STUN goes out within milliseconds once gathering starts
        for name, sock in listeners.items():
            data = received(sock)
            if data:
                problems[name] = f"UDP listener received {len(data)} bytes (outcome {outcomes[name]!r})"
    finally:
        for sock in listeners.values():
            sock.close()
    assert problems == {}, json.dumps(problems, indent=1)


def test_no_script_route_yields_a_frame_or_a_peer_connection(rig: Rig) -> None:
    run_routes(rig, ROUTES, app_html)


def test_no_source_route_yields_a_frame_or_a_peer_connection(rig: Rig) -> None:
    run_routes(rig, SOURCE_ROUTES, source_html, timeout_ms=1500)


def test_an_app_without_frames_still_runs_with_the_guard(rig: Rig) -> None:
    route = """var d = document.createElement("div"); d.innerHTML = "<b>bold</b><svg><circle r='1'/></svg>";
        document.body.append(d); var t = document.createElement("template"); t.innerHTML = "<p>t</p>";
        document.body.append(t.content.cloneNode(true)); var host = document.createElement("span");
        host.attachShadow({mode: "open"}).innerHTML = "<i>in shadow</i>"; document.body.append(host);
        document.body.insertAdjacentHTML("beforeend", "<ul><li>1</li></ul>");
        var parsed = new DOMParser().parseFromString("<p id=parsed>p</p>", "text/html");
        document.body.append(document.adoptNode(parsed.body.firstChild));
        return [typeof RTCPeerConnection, document.querySelectorAll("b,li,#parsed,p").length, host.shadowRoot.innerHTML].join("|");"""
    outcome = render(rig, app_html(route, 9))
    assert outcome != "timeout"
    assert outcome["outcome"] == "undefined|4|<i>in shadow</i>", outcome


def test_a_frame_in_the_markup_is_refused_with_the_reference_message(rig: Rig) -> None:
    assert render(rig, "<!doctype html><body><iframe></iframe></body>", 1500) == "timeout"
    assert any(REFUSED in text for text in rig.errors), rig.errors
