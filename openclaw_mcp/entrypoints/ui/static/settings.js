// The MCP settings page of `openclaw mcp ui` (spec mcp-settings-page §3–§8, §11.4). Plain JavaScript, no
// build step, no network assets. Every DOM text goes through textContent (never innerHTML).
"use strict";

(() => {
  const TOKEN_KEY = "openclaw-mcp-ui-token";
  const SENTINEL_NOT_FOUND = (name) => `MCP server \u201c${name}\u201d was not found in the configuration.`;
  const UNAVAILABLE = "Configuration is unavailable; refresh and try again.";
  const CONFLICT_TRIES = 3;

  const $ = (selector) => document.querySelector(selector);

  function storeToken(value) {
    try {
      sessionStorage.setItem(TOKEN_KEY, value);
    } catch (_) {
      /* storage unavailable: the token lives for this page view only */
      window.__mcpToken = value;
    }
  }

  function readToken() {
    const match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
    if (match) {
      storeToken(decodeURIComponent(match[1]));
      history.replaceState(null, "", location.pathname + location.search);
    }
    let stored = null;
    try {
      stored = sessionStorage.getItem(TOKEN_KEY);
    } catch (_) {
      stored = null;
    }
    return stored || window.__mcpToken || null;
  }

  let token = readToken();

  // The page `openclaw mcp ui` opened carries `#code=…`, a single-use code (never the token, which would
  // show on the browser's command line): traded once for the token, then dead. True when a token came.
  async function redeemCode() {
    const match = /(?:^#|&)code=([^&]*)/.exec(location.hash);
    if (!match) return false;
    history.replaceState(null, "", location.pathname + location.search);
    try {
      const response = await fetch("/api/mcp/session", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ code: decodeURIComponent(match[1]) }),
        cache: "no-store",
        credentials: "omit",
      });
      const json = await response.json();
      if (!response.ok || !json || json.ok !== true || typeof json.token !== "string") return false;
      storeToken(json.token);
      return true;
    } catch (_) {
      return false;
    }
  }

  const state = {
    snapshot: null,
    busy: false,
    editorDirty: false,
    editorBase: null,
    probes: new Map(),
    ownHashes: new Set(), // hashes the page's own writes produced: never "changed elsewhere"
    confirmRemove: null, // the row whose Remove waits for its confirmation
    stash: null, // a draft set aside by Reload, offered back by "Restore draft"
  };
  const MESSAGE_TTL_MS = 8000;
  const changeCallbacks = [];

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  async function api(method, path, body) {
    const headers = { Authorization: `Bearer ${token}` };
    const init = { method, headers, cache: "no-store", credentials: "omit" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      return { status: 0, json: { ok: false, error: { type: "network", message: UNAVAILABLE } } };
    }
    let json = null;
    try {
      json = await response.json();
    } catch (_) {
      json = { ok: false, error: { type: "error", message: `HTTP ${response.status}` } };
    }
    return { status: response.status, json };
  }

  const serverPath = (name, suffix) => `/api/mcp/servers/${encodeURIComponent(name)}${suffix || ""}`;

  // -- rendering ------------------------------------------------------------------------------------

  function renderSummary(summary) {
    const cards = [
      ["Servers", summary.servers],
      ["Enabled", summary.enabled],
      ["OAuth", summary.oauth],
      ["Filtered", summary.filtered],
    ];
    $("#mcp-summary").replaceChildren(
      ...cards.map(([label, value]) =>
        el(
          "div",
          { class: "settings-row" },
          el("span", { class: "settings-row__label", text: label }),
          el("span", { class: "settings-row__value", text: String(value) }),
        ),
      ),
    );
  }

  // the file could not be read or parsed at all (the issue at <root>): nothing in it can be shown
  const unreadable = (snapshot) =>
    Boolean(snapshot && !snapshot.valid && snapshot.exists && snapshot.issues.some((issue) => issue.path === "<root>"));

  function renderIssues(snapshot) {
    const box = $("#mcp-config-issues");
    if (snapshot.valid) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.replaceChildren(
      el("strong", {
        text: unreadable(snapshot)
          ? `The config file ${snapshot.path} could not be read; its servers are not shown and changes are refused until it is fixed.`
          : "The config file is invalid; changes are refused until it is fixed.",
      }),
      el("ul", {}, ...snapshot.issues.map((issue) => el("li", { text: `${issue.path}: ${issue.message}` }))),
    );
    box.hidden = false;
  }

  function rowElement(row) {
    const disabled = state.busy;
    const hint =
      row.hint.kind === "code"
        ? el("code", { class: "mcp-server-row__hint", text: row.hint.text })
        : el("span", { class: "mcp-server-row__hint mcp-server-row__hint--text", text: row.hint.text });
    let oauth = null;
    if (row.oauth) {
      oauth = el("span", {
        class: "mcp-oauth-state",
        "data-state": row.oauth.state,
        "data-label": row.oauth.label,
        title: `OAuth: ${row.oauth.label}`,
        role: "img",
        "aria-label": `OAuth: ${row.oauth.label}`,
      });
    }
    const probe = el("button", {
      type: "button",
      class: "btn btn--icon mcp-server-row__probe",
      "aria-label": `Probe ${row.name}`,
      title: `Probe ${row.name}`,
      disabled: disabled || !row.enabled || state.probes.get(row.name)?.running,
      onclick: () => runProbe(row.name),
    });
    const verb = row.enabled ? "Disable" : "Enable";
    const toggle = el("button", {
      type: "button",
      class: "btn mcp-server-row__toggle",
      "aria-label": state.busy ? null : `${verb} ${row.name}`,
      disabled,
      text: state.busy ? "Working\u2026" : verb,
      onclick: () => toggleServer(row.name, !row.enabled),
    });
    let remove;
    if (state.confirmRemove === row.name && !state.busy) {
      // Remove asks first (no undo: the API redacts env/headers, so a re-add could not restore the secrets)
      remove = el(
        "span",
        { class: "mcp-server-row__confirm", role: "group", "aria-label": `Remove ${row.name}?` },
        el("span", { class: "mcp-server-row__confirm-text", text: "Remove?" }),
        el("button", {
          type: "button",
          class: "btn btn--danger-solid mcp-server-row__remove-confirm",
          text: "Remove",
          "aria-label": `Remove ${row.name} now`,
          onclick: () => removeServer(row.name),
        }),
        el("button", {
          type: "button",
          class: "btn mcp-server-row__remove-cancel",
          text: "Cancel",
          "aria-label": `Keep ${row.name}`,
          onclick: () => cancelRemove(row.name),
        }),
      );
      remove.addEventListener("keydown", (event) => {
        if (event.key === "Escape") cancelRemove(row.name);
      });
    } else {
      remove = el("button", {
        type: "button",
        class: "btn btn--icon btn--danger mcp-server-row__remove",
        "aria-label": `Remove ${row.name}`,
        title: `Remove ${row.name}`,
        disabled,
        onclick: () => askRemove(row.name),
      });
    }
    return el(
      "div",
      { class: "settings-row mcp-server-row", "data-mcp-name": row.name },
      el(
        "div",
        { class: "mcp-server-row__info" },
        el("div", { class: "mcp-server-row__title", text: row.name }),
        el("div", { class: "mcp-server-row__target", text: row.target }),
        el("div", { class: "mcp-server-row__meta", text: row.meta }),
      ),
      el(
        "div",
        { class: "mcp-server-row__controls" },
        el(
          "div",
          { class: "mcp-server-row__status" },
          el("span", { class: `pill ${row.enabled ? "pill--ok" : "pill--muted"}`, text: row.enabled ? "Enabled" : "Disabled" }),
          hint,
          oauth,
        ),
        el(
          "div",
          { class: "mcp-server-row__actions" },
          probe,
          toggle,
          el("span", { class: "mcp-server-row__danger-zone" }, remove),
        ),
      ),
    );
  }

  function probeElement(name, probe) {
    const box = el("div", { class: "mcp-probe-result", "data-mcp-probe-for": name, role: "status" });
    if (probe.running) {
      box.append(el("div", { text: `Probing ${name}\u2026` }));
      return box;
    }
    const close = el("button", {
      type: "button",
      class: "btn btn--small mcp-probe-result__close",
      text: "Close",
      "aria-label": `Close the probe result of ${name}`,
      onclick: () => {
        state.probes.delete(name);
        renderRows();
      },
    });
    if (!probe.ok && probe.error) {
      box.classList.add("mcp-probe-result--error");
      box.setAttribute("role", "alert");
      box.append(el("div", { text: `Probe failed: ${probe.error}` }), close);
      return box;
    }
    if (!probe.ok) {
      box.classList.add("mcp-probe-result--error");
      box.setAttribute("role", "alert");
    }
    const result = probe.result || {};
    const server = (result.servers || {})[name] || {};
    const tools = result.tools || [];
    const lines = [
      `${probe.ok ? "Connected" : "Probe failed"} in ${probe.elapsedMs} ms`,
      `Tools (${tools.length}): ${tools.length ? tools.join(", ") : "none"}`,
    ];
    if (server.filteredTools) {
      const filter = probe.toolFilter || {};
      const rules = [];
      if (filter.include) rules.push(`include ${filter.include.join(", ")}`);
      if (filter.exclude) rules.push(`exclude ${filter.exclude.join(", ")}`);
      lines.push(`Filtered out: ${server.filteredTools} (tool filter: ${rules.join("; ") || "set"})`);
    }
    lines.push(`Resources: ${server.resources ? "yes" : "no"} · Prompts: ${server.prompts ? "yes" : "no"}`);
    box.append(...lines.map((line) => el("div", { text: line })));
    if (probe.diagnostics && probe.diagnostics.length) {
      box.append(
        el("div", { class: "mcp-probe-result__heading", text: "Diagnostics" }),
        el("ul", {}, ...probe.diagnostics.map((line) => el("li", { text: line }))),
      );
    }
    box.append(close);
    return box;
  }

  function renderRows() {
    const snapshot = state.snapshot;
    if (!snapshot) return;
    const list = $("#mcp-server-list");
    if (unreadable(snapshot)) {
      list.replaceChildren(
        el(
          "div",
          { class: "mcp-empty mcp-unreadable" },
          el("p", { text: "The servers cannot be listed: the config file could not be read (see above)." }),
        ),
      );
      return;
    }
    if (!snapshot.rows.length) {
      list.replaceChildren(
        el(
          "div",
          { class: "mcp-empty" },
          el("p", { text: "No MCP servers configured." }),
          el("a", { href: "https://docs.openclaw.ai/tools/mcp", target: "_blank", rel: "noreferrer noopener", text: "Set up your first MCP server" }),
        ),
      );
      return;
    }
    const focused = document.activeElement;
    const focusKey = focused && focused.closest ? rowFocusKey(focused) : null;
    const children = [];
    for (const row of snapshot.rows) {
      children.push(rowElement(row));
      const probe = state.probes.get(row.name);
      if (probe) children.push(probeElement(row.name, probe));
    }
    list.replaceChildren(...children);
    if (focusKey) restoreFocus(focusKey);
  }

  function rowFocusKey(node) {
    const row = node.closest(".mcp-server-row");
    if (!row) return null;
    const kind = [
      "mcp-server-row__toggle",
      "mcp-server-row__remove",
      "mcp-server-row__probe",
      "mcp-server-row__remove-confirm",
      "mcp-server-row__remove-cancel",
    ].find((name) =>
      node.classList.contains(name),
    );
    return kind ? { name: row.dataset.mcpName, kind } : null;
  }

  function rowNamed(name) {
    for (const row of document.querySelectorAll(".mcp-server-row")) {
      if (row.dataset.mcpName === name) return row;
    }
    return null;
  }

  // true when the control was there to take the focus
  function restoreFocus(key) {
    const row = rowNamed(key.name);
    const target = row && row.querySelector(`.${key.kind}`);
    if (!target) return false;
    target.focus();
    return true;
  }

  function focusHeading() {
    const heading = $("#mcp-servers-heading");
    heading.setAttribute("tabindex", "-1");
    heading.focus();
  }

  // one message at a time: a new one replaces the old; a success fades after MESSAGE_TTL_MS
  let messageTimer = null;

  function showMessage(kind, text) {
    const slot = $("#mcp-server-message-slot");
    clearTimeout(messageTimer);
    if (!kind) {
      slot.replaceChildren();
      return null;
    }
    $(".settings-save-indicator__note").hidden = true;
    const node = el("div", {
      class: `mcp-server-message mcp-server-message--${kind}`,
      role: kind === "success" ? "status" : "alert",
      tabindex: "-1",
      text,
    });
    slot.replaceChildren(node);
    if (kind === "success") {
      messageTimer = setTimeout(() => {
        if (node.isConnected && document.activeElement !== node) node.remove();
      }, MESSAGE_TTL_MS);
    }
    return node;
  }


  // -- JSON5 (spec §11: the editor accepts JSON5 like `mcp set`): comments, trailing commas, single quotes,
  // unquoted keys, hex, leading/trailing dots, +sign. JSON5.parse's rules: the last of repeated keys wins.
  // The server then validates the value as for every save (one rule); non-finite numbers are refused here
  // because JSON cannot carry them.
  function parseJson5(text) {
    let at = 0;
    const fail = (what) => {
      const before = text.slice(0, at);
      const line = before.split("\n").length;
      const column = at - before.lastIndexOf("\n");
      throw new SyntaxError(`${what} at ${line}:${column}`);
    };
    const peek = () => text[at];
    const isSpace = (c) => c !== undefined && /[\s\uFEFF]/.test(c);
    function skip() {
      for (;;) {
        const c = peek();
        if (isSpace(c)) at += 1;
        else if (c === "/" && text[at + 1] === "/") {
          while (at < text.length && !/[\n\r\u2028\u2029]/.test(text[at])) at += 1;
        } else if (c === "/" && text[at + 1] === "*") {
          const end = text.indexOf("*/", at + 2);
          if (end < 0) fail("unterminated comment");
          at = end + 2;
        } else return;
      }
    }
    const ESCAPES = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", 0: "\0" };
    function hex(count) {
      const digits = text.slice(at, at + count);
      if (!new RegExp(`^[0-9a-fA-F]{${count}}$`).test(digits)) fail("invalid escape");
      at += count;
      return String.fromCharCode(parseInt(digits, 16));
    }
    function string() {
      const quote = text[at];
      at += 1;
      let out = "";
      for (;;) {
        if (at >= text.length) fail("unterminated string");
        const c = text[at];
        if (c === quote) {
          at += 1;
          return out;
        }
        if (c === "\n" || c === "\r") fail("invalid character in string");
        if (c !== "\\") {
          out += c;
          at += 1;
          continue;
        }
        at += 1;
        const e = text[at];
        at += 1;
        if (e === undefined) fail("unterminated string");
        if (e === "x") out += hex(2);
        else if (e === "u") out += hex(4);
        else if (e === "0" && /[0-9]/.test(text[at] || "")) fail("invalid escape");
        else if (e in ESCAPES) out += ESCAPES[e];
        else if (/[1-9]/.test(e)) fail("invalid escape");
        else if (e === "\r") {
          if (text[at] === "\n") at += 1;
        } else if (e === "\n" || e === "\u2028" || e === "\u2029") {
          /* line continuation */
        } else out += e;
      }
    }
    function identifier() {
      const match = /^(?:[$_\p{ID_Start}]|\\u[0-9a-fA-F]{4})(?:[$_\u200C\u200D\p{ID_Continue}]|\\u[0-9a-fA-F]{4})*/u.exec(
        text.slice(at),
      );
      if (!match) fail(`invalid character '${peek() === undefined ? "end of input" : peek()}'`);
      at += match[0].length;
      return match[0].replace(/\\u([0-9a-fA-F]{4})/g, (_, code) => String.fromCharCode(parseInt(code, 16)));
    }
    function number() {
      const match = /^[+-]?(?:Infinity|NaN|0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/.exec(text.slice(at));
      if (!match) fail(`invalid character '${peek()}'`);
      at += match[0].length;
      const body = match[0].replace(/^[+-]/, "");
      const sign = match[0][0] === "-" ? -1 : 1;
      const value = /^0[xX]/.test(body) ? parseInt(body, 16) : Number(body);
      if (!Number.isFinite(value)) fail(`non-finite number ${match[0]} (JSON cannot carry it)`);
      return sign * value;
    }
    function value(depth) {
      if (depth > 64) fail("nested deeper than 64 levels");
      skip();
      const c = peek();
      if (c === undefined) fail("unexpected end of input");
      if (c === "{") {
        at += 1;
        const out = {};
        for (;;) {
          skip();
          if (peek() === "}") {
            at += 1;
            return out;
          }
          if (peek() === undefined) fail("unexpected end of input");
          const key = peek() === '"' || peek() === "'" ? string() : identifier();
          skip();
          if (peek() !== ":") fail(`expected ':'`);
          at += 1;
          Object.defineProperty(out, key, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
          skip();
          if (peek() === ",") at += 1;
          else if (peek() !== "}") fail(`expected ',' or '}'`);
        }
      }
      if (c === "[") {
        at += 1;
        const out = [];
        for (;;) {
          skip();
          if (peek() === "]") {
            at += 1;
            return out;
          }
          out.push(value(depth + 1));
          skip();
          if (peek() === ",") at += 1;
          else if (peek() !== "]") fail(`expected ',' or ']'`);
        }
      }
      if (c === '"' || c === "'") return string();
      for (const [word, literal] of [["true", true], ["false", false], ["null", null]]) {
        if (text.startsWith(word, at)) {
          at += word.length;
          return literal;
        }
      }
      return number();
    }
    const result = value(1);
    skip();
    if (at < text.length) fail(`unexpected '${peek()}'`);
    return result;
  }

  // -- the editor -------------------------------------------------------------------------------------

  const editor = () => $("#mcp-editor");

  function setIndicator(kind, text, action) {
    const indicator = $(".settings-save-indicator");
    const label = $(".settings-save-indicator__text");
    const button = $(".settings-save-indicator__action");
    indicator.className = `settings-save-indicator${kind ? ` settings-save-indicator--${kind}` : ""}`;
    label.textContent = text || "";
    indicator.removeAttribute("aria-label");
    indicator.removeAttribute("title");
    if (action) {
      button.textContent = action.label;
      button.onclick = action.run;
      button.hidden = false;
    } else {
      button.hidden = true;
      button.onclick = null;
    }
  }

  function setEditorMessage(text) {
    const box = $(".settings-save-indicator__message");
    box.textContent = text || "";
    box.hidden = !text;
  }

  function fillEditor(snapshot) {
    const blocked = unreadable(snapshot);
    editor().readOnly = blocked;
    editor().placeholder = blocked ? "The config file could not be read; fix it, then the mcp block appears here." : "";
    $("#mcp-editor-save").disabled = blocked;
    editor().value = blocked ? "" : JSON.stringify(snapshot.mcp, null, 2);
    state.editorBase = snapshot.hash;
    state.editorDirty = false;
    $("#mcp-editor-error").hidden = true;
  }

  function showConflict() {
    setEditorMessage("");
    setIndicator("danger", "Settings changed elsewhere", { label: "Reload", run: reloadEditor });
  }

  // Reload (after a conflict) keeps the draft: set aside, offered back by "Restore draft"
  async function reloadEditor() {
    const kept = state.editorDirty ? editor().value : null;
    state.editorDirty = false;
    setIndicator(null, "");
    setEditorMessage("");
    await load({ replaceEditor: true });
    if (kept !== null) {
      state.stash = kept;
      setIndicator(null, "Reloaded. Your draft was set aside.", { label: "Restore draft", run: restoreDraft });
    }
  }

  function restoreDraft() {
    if (state.stash === null) return;
    editor().value = state.stash;
    state.stash = null;
    state.editorDirty = true;
    state.editorBase = state.snapshot ? state.snapshot.hash : state.editorBase;
    setIndicator(null, "Draft restored over the current config; Save to apply it.");
    editor().focus();
  }

  // Discard asks when there is a draft to lose
  async function discardEditor() {
    if (state.editorDirty && !window.confirm("Discard your unsaved changes to the MCP config?")) return;
    state.stash = null;
    state.editorDirty = false;
    setIndicator(null, "");
    setEditorMessage("");
    $(".settings-save-indicator__note").hidden = true;
    await load({ replaceEditor: true });
  }

  // A row action while the editor holds a draft: the same change goes into the draft, which then rests on
  // the new file (own writes are not "changed elsewhere"). A draft that is not plain JSON is left as typed.
  function mergeIntoDraft(action) {
    const fresh = state.snapshot && state.snapshot.mcp && state.snapshot.mcp.servers;
    let draft = null;
    try {
      draft = JSON.parse(editor().value);
    } catch (_) {
      draft = null;
    }
    if (!fresh || draft === null || typeof draft !== "object" || Array.isArray(draft)) {
      setIndicator("danger", "Draft not updated", { label: "Reload", run: reloadEditor });
      setEditorMessage(
        "Your draft is not plain JSON, so the row change was not merged into it. Reload to start from the saved config; your draft stays available.",
      );
      return;
    }
    if (!draft.servers || typeof draft.servers !== "object" || Array.isArray(draft.servers)) draft.servers = {};
    const servers = draft.servers;
    const entry = servers[action.name];
    if (action.kind === "remove") {
      delete servers[action.name];
    } else if (action.kind === "add") {
      if (fresh[action.name] !== undefined) servers[action.name] = fresh[action.name];
    } else if (entry && typeof entry === "object" && !Array.isArray(entry)) {
      const now = fresh[action.name] || {};
      if ("enabled" in now) entry.enabled = now.enabled;
      else delete entry.enabled;
    }
    editor().value = JSON.stringify(draft, null, 2);
    state.editorBase = state.snapshot.hash;
    setIndicator(null, "Unsaved draft kept; the row change is in it.");
    setEditorMessage("");
  }

  let savedTimer = null;

  async function saveEditor() {
    const text = editor().value;
    const errorBox = $("#mcp-editor-error");
    let value;
    try {
      value = parseJson5(text);
    } catch (error) {
      errorBox.textContent = `Invalid JSON: ${error.message}`;
      errorBox.hidden = false;
      return;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      errorBox.textContent = "Invalid JSON: the mcp block must be a JSON object.";
      errorBox.hidden = false;
      return;
    }
    errorBox.hidden = true;
    setEditorMessage("");
    showMessage(null);
    $(".settings-save-indicator__note").hidden = true;
    setIndicator(null, "Saving\u2026");
    setEditorButtons(true);
    const response = await api("PUT", "/api/mcp", { baseHash: state.editorBase, mcp: value });
    setEditorButtons(false);
    if (response.json && response.json.ok) {
      state.editorDirty = false;
      state.stash = null;
      state.ownHashes.add(response.json.hash);
      setIndicator("ok", "Saved");
      $(".settings-save-indicator__note").hidden = false;
      clearTimeout(savedTimer);
      savedTimer = setTimeout(() => {
        if ($(".settings-save-indicator__text").textContent === "Saved") setIndicator(null, "");
      }, 2000);
      setTimeout(() => {
        $(".settings-save-indicator__note").hidden = true;
      }, MESSAGE_TTL_MS);
      await load({ replaceEditor: true });
      return;
    }
    const error = (response.json && response.json.error) || { type: "error", message: UNAVAILABLE };
    if (error.type === "conflict") {
      showConflict();
      return;
    }
    setIndicator("danger", "Save failed", { label: "Retry", run: saveEditor });
    const indicator = $(".settings-save-indicator");
    indicator.setAttribute("aria-label", `Save failed: ${error.message}`);
    indicator.setAttribute("title", `Save failed: ${error.message}`);
    setEditorMessage(error.message);
  }

  function setEditorButtons(disabled) {
    $("#mcp-editor-save").disabled = disabled || unreadable(state.snapshot);
    $("#mcp-editor-discard").disabled = disabled;
  }

  // -- loading and following changes --------------------------------------------------------------------

  async function load(options) {
    const response = await api("GET", "/api/mcp");
    if (response.status === 401) {
      showUnauthenticated();
      return false;
    }
    if (!response.json || !response.json.ok) {
      showMessage("error", (response.json && response.json.error && response.json.error.message) || UNAVAILABLE);
      return false;
    }
    const snapshot = response.json;
    const changed = !state.snapshot || state.snapshot.hash !== snapshot.hash;
    state.snapshot = snapshot;
    renderIssues(snapshot);
    renderSummary(snapshot.summary);
    renderRows();
    if (!state.editorDirty || (options && options.replaceEditor)) fillEditor(snapshot);
    if (changed) for (const callback of changeCallbacks) callback(snapshot);
    return true;
  }

  async function follow() {
    // fetch, not EventSource: the stream needs the bearer header
    for (;;) {
      try {
        const response = await fetch("/api/mcp/events", {
          headers: { Authorization: `Bearer ${token}` },
          cache: "no-store",
          credentials: "omit",
        });
        if (response.status === 401) {
          showUnauthenticated();
          return;
        }
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (/^event: config\.changed$/m.test(block)) await onExternalChange(block);
          }
        }
      } catch (_) {
        /* the stream broke: reconnect */
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  async function onExternalChange(block) {
    const data = /^data: (.*)$/m.exec(block);
    let hash = null;
    try {
      hash = data ? JSON.parse(data[1]).hash : null;
    } catch (_) {
      hash = null;
    }
    if (state.busy) return; // the action reloads when it ends
    const own = hash !== null && state.ownHashes.has(hash);
    if (state.editorDirty && hash !== state.editorBase && !own) showConflict();
    if (!state.snapshot || hash !== state.snapshot.hash) await load();
  }

  function showUnauthenticated() {
    $("#mcp-content").hidden = true;
    $("#mcp-auth-required").hidden = false;
  }

  // -- row actions -----------------------------------------------------------------------------------

  async function mutate(run, action) {
    if (state.busy) return null;
    showMessage(null);
    state.confirmRemove = null;
    state.busy = true;
    renderRows();
    let response = null;
    try {
      for (let attempt = 0; attempt < CONFLICT_TRIES; attempt += 1) {
        const base = state.snapshot ? state.snapshot.hash : null;
        if (base === null) break;
        response = await api(...run(base));
        if (response.json && response.json.ok && typeof response.json.hash === "string") {
          state.ownHashes.add(response.json.hash);
        }
        const conflict = response.json && response.json.error && response.json.error.type === "conflict";
        if (!conflict) break;
        await load(); // another writer got there first: re-read and re-apply on the fresh file
      }
    } finally {
      state.busy = false;
    }
    await load();
    if (response && response.json && response.json.ok && state.editorDirty && action) mergeIntoDraft(action);
    return response;
  }

  // after an action the focus goes to the message when it failed, else where `place` puts it
  function settleFocus(ok, place) {
    if (!ok) {
      const message = $("#mcp-server-message-slot .mcp-server-message");
      if (message) message.focus();
      return;
    }
    if (!place()) focusHeading();
  }

  function report(response, name) {
    if (!response) {
      showMessage("error", UNAVAILABLE);
      return false;
    }
    if (response.json && response.json.ok) {
      showMessage("success", response.json.message);
      return true;
    }
    const error = (response.json && response.json.error) || { message: UNAVAILABLE };
    showMessage("error", error.type === "not_found" && name !== undefined ? SENTINEL_NOT_FOUND(name) : error.message);
    return false;
  }

  async function toggleServer(name, enabled) {
    const response = await mutate((base) => ["POST", serverPath(name, "/enabled"), { baseHash: base, enabled }], {
      kind: "toggle",
      name,
    });
    const ok = report(response, name);
    settleFocus(ok, () => restoreFocus({ name, kind: "mcp-server-row__toggle" }));
  }

  function askRemove(name) {
    state.confirmRemove = name;
    renderRows();
    restoreFocus({ name, kind: "mcp-server-row__remove-cancel" });
  }

  function cancelRemove(name) {
    state.confirmRemove = null;
    renderRows();
    restoreFocus({ name, kind: "mcp-server-row__remove" });
  }

  async function removeServer(name) {
    const names = state.snapshot ? state.snapshot.rows.map((row) => row.name) : [];
    const index = names.indexOf(name);
    state.probes.delete(name);
    const response = await mutate((base) => ["DELETE", serverPath(name), { baseHash: base }], { kind: "remove", name });
    const ok = report(response, name);
    // the focus goes to the next row's toggle (else the previous one's, else the list heading)
    settleFocus(ok, () => {
      const rest = state.snapshot ? state.snapshot.rows.map((row) => row.name) : [];
      const after = names.slice(index + 1).find((other) => rest.includes(other));
      const before = names.slice(0, Math.max(index, 0)).reverse().find((other) => rest.includes(other));
      const next = after !== undefined ? after : before;
      return next !== undefined && restoreFocus({ name: next, kind: "mcp-server-row__toggle" });
    });
  }

  async function runProbe(name) {
    state.probes.set(name, { running: true });
    renderRows();
    const response = await api("POST", serverPath(name, "/probe"), {});
    if (response.json && response.json.ok !== false && response.json.result) {
      state.probes.set(name, response.json);
    } else if (response.json && response.json.result) {
      state.probes.set(name, response.json);
    } else {
      const error = (response.json && response.json.error && response.json.error.message) || UNAVAILABLE;
      state.probes.set(name, { ok: false, error });
    }
    renderRows();
  }

  // -- the add form ------------------------------------------------------------------------------------

  function setFormOpen(open) {
    const form = $("#mcp-add-form");
    form.hidden = !open;
    $("#mcp-add-toggle").setAttribute("aria-expanded", String(open));
    if (open) {
      showMessage(null);
      $("#mcp-name").focus();
    }
  }

  async function submitAdd(event) {
    event.preventDefault();
    const name = $("#mcp-name");
    const target = $("#mcp-target");
    for (const input of [name, target]) {
      if (!input.value) {
        input.reportValidity();
        input.setAttribute("aria-invalid", "true");
        return;
      }
      input.removeAttribute("aria-invalid");
    }
    const submit = $("#mcp-add-submit");
    submit.textContent = "Adding\u2026";
    submit.disabled = true;
    const body = { name: name.value, transport: $("#mcp-transport").value, target: target.value };
    const response = await mutate((base) => ["POST", "/api/mcp/servers", { baseHash: base, ...body }], {
      kind: "add",
      name: body.name,
    });
    submit.textContent = "Add server";
    submit.disabled = false;
    if (report(response)) {
      $("#mcp-add-form").reset();
      setFormOpen(false);
      // the new row's toggle (its name as stored is the one typed, trimmed by the server's rules)
      if (!restoreFocus({ name: body.name, kind: "mcp-server-row__toggle" })) {
        const added = state.snapshot && state.snapshot.rows.find((row) => row.name === body.name.trim());
        if (!added || !restoreFocus({ name: added.name, kind: "mcp-server-row__toggle" })) focusHeading();
      }
    } else {
      const message = $("#mcp-server-message-slot .mcp-server-message");
      if (message) message.focus();
    }
  }

  // -- start ---------------------------------------------------------------------------------------------

  let started = false;

  async function start() {
    if (!started) {
      // a token may arrive later through a same-document navigation to `#token=…` (or `#code=…`)
      window.addEventListener("hashchange", async () => {
        await redeemCode();
        const fresh = readToken();
        if (fresh && fresh !== token) {
          token = fresh;
          $("#mcp-auth-required").hidden = true;
          begin();
        }
      });
      started = true;
    }
    if (await redeemCode()) token = readToken();
    if (!token) {
      showUnauthenticated();
      return;
    }
    begin();
  }

  let begun = false;
  const readyCallbacks = [];

  // what apps.js (the MCP Apps panel) uses: the authenticated API and the element helper
  window.openclawMcpUi = Object.freeze({
    api: (method, path, body) => api(method, path, body),
    el,
    onReady(callback) {
      if (begun) callback();
      else readyCallbacks.push(callback);
    },
    // called with the fresh snapshot whenever the config's hash changes (own writes and outside ones)
    onChange(callback) {
      changeCallbacks.push(callback);
    },
  });

  function begin() {
    $("#mcp-content").hidden = false;
    if (begun) {
      load({ replaceEditor: true });
      return;
    }
    begun = true;
    for (const callback of readyCallbacks.splice(0)) callback();
    $("#mcp-add-toggle").addEventListener("click", () => setFormOpen($("#mcp-add-form").hidden));
    $("#mcp-add-cancel").addEventListener("click", () => setFormOpen(false));
    $("#mcp-add-form").addEventListener("submit", submitAdd);
    editor().addEventListener("input", () => {
      state.editorDirty = true;
      $("#mcp-editor-error").hidden = true;
    });
    $("#mcp-editor-save").addEventListener("click", saveEditor);
    $("#mcp-editor-discard").addEventListener("click", discardEditor);
    // leaving the page with an unsaved draft asks first
    window.addEventListener("beforeunload", (event) => {
      if (!state.editorDirty) return;
      event.preventDefault();
      event.returnValue = "";
    });
    load({ replaceEditor: true }).then((ok) => {
      if (ok) follow();
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
