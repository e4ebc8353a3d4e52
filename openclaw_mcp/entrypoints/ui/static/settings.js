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
  };

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

  function renderIssues(snapshot) {
    const box = $("#mcp-config-issues");
    if (snapshot.valid) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.replaceChildren(
      el("strong", { text: "The config file is invalid; changes are refused until it is fixed." }),
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
    const toggle = el("button", {
      type: "button",
      class: "btn mcp-server-row__toggle",
      disabled,
      text: state.busy ? "Working\u2026" : row.enabled ? "Disable" : "Enable",
      onclick: () => toggleServer(row.name, !row.enabled),
    });
    const remove = el("button", {
      type: "button",
      class: "btn btn--icon btn--danger mcp-server-row__remove",
      "aria-label": `Remove ${row.name}`,
      title: `Remove ${row.name}`,
      disabled,
      onclick: () => removeServer(row.name),
    });
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
        el("span", { class: `pill ${row.enabled ? "pill--ok" : "pill--muted"}`, text: row.enabled ? "Enabled" : "Disabled" }),
        hint,
        oauth,
        probe,
        toggle,
        remove,
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
    const result = probe.result || {};
    const server = (result.servers || {})[name] || {};
    const tools = result.tools || [];
    const lines = [
      `${probe.ok ? "Connected" : "Probe finished with problems"} in ${probe.elapsedMs} ms`,
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
    const kind = ["mcp-server-row__toggle", "mcp-server-row__remove", "mcp-server-row__probe"].find((name) =>
      node.classList.contains(name),
    );
    return kind ? { name: row.dataset.mcpName, kind } : null;
  }

  function restoreFocus(key) {
    for (const row of document.querySelectorAll(".mcp-server-row")) {
      if (row.dataset.mcpName === key.name) {
        const target = row.querySelector(`.${key.kind}`);
        if (target) target.focus();
        return;
      }
    }
  }

  function showMessage(kind, text) {
    const slot = $("#mcp-server-message-slot");
    if (!kind) {
      slot.replaceChildren();
      return;
    }
    slot.replaceChildren(
      el("div", {
        class: `mcp-server-message mcp-server-message--${kind}`,
        role: kind === "success" ? "status" : "alert",
        text,
      }),
    );
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
    editor().value = JSON.stringify(snapshot.mcp, null, 2);
    state.editorBase = snapshot.hash;
    state.editorDirty = false;
    $("#mcp-editor-error").hidden = true;
  }

  function showConflict() {
    setEditorMessage("");
    setIndicator("danger", "Settings changed elsewhere", { label: "Reload", run: reloadEditor });
  }

  async function reloadEditor() {
    state.editorDirty = false;
    setIndicator(null, "");
    setEditorMessage("");
    await load({ replaceEditor: true });
  }

  let savedTimer = null;

  async function saveEditor() {
    const text = editor().value;
    const errorBox = $("#mcp-editor-error");
    let value;
    try {
      value = JSON.parse(text);
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
    $(".settings-save-indicator__note").hidden = true;
    setIndicator(null, "Saving\u2026");
    setEditorButtons(true);
    const response = await api("PUT", "/api/mcp", { baseHash: state.editorBase, mcp: value });
    setEditorButtons(false);
    if (response.json && response.json.ok) {
      state.editorDirty = false;
      setIndicator("ok", "Saved");
      $(".settings-save-indicator__note").hidden = false;
      clearTimeout(savedTimer);
      savedTimer = setTimeout(() => {
        if ($(".settings-save-indicator__text").textContent === "Saved") setIndicator(null, "");
      }, 2000);
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
    $("#mcp-editor-save").disabled = disabled;
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
    state.snapshot = snapshot;
    renderIssues(snapshot);
    renderSummary(snapshot.summary);
    renderRows();
    if (!state.editorDirty || (options && options.replaceEditor)) fillEditor(snapshot);
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
    if (state.editorDirty && hash !== state.editorBase) showConflict();
    if (!state.snapshot || hash !== state.snapshot.hash) await load();
  }

  function showUnauthenticated() {
    $("#mcp-content").hidden = true;
    $("#mcp-auth-required").hidden = false;
  }

  // -- row actions -----------------------------------------------------------------------------------

  async function mutate(run) {
    if (state.busy) return null;
    showMessage(null);
    state.busy = true;
    renderRows();
    let response = null;
    try {
      for (let attempt = 0; attempt < CONFLICT_TRIES; attempt += 1) {
        const base = state.snapshot ? state.snapshot.hash : null;
        if (base === null) break;
        response = await api(...run(base));
        const conflict = response.json && response.json.error && response.json.error.type === "conflict";
        if (!conflict) break;
        await load(); // another writer got there first: re-read and re-apply on the fresh file
      }
    } finally {
      state.busy = false;
    }
    await load();
    return response;
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
    const response = await mutate((base) => ["POST", serverPath(name, "/enabled"), { baseHash: base, enabled }]);
    report(response, name);
  }

  async function removeServer(name) {
    state.probes.delete(name);
    const response = await mutate((base) => ["DELETE", serverPath(name), { baseHash: base }]);
    report(response, name);
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
    const response = await mutate((base) => ["POST", "/api/mcp/servers", { baseHash: base, ...body }]);
    submit.textContent = "Add server";
    submit.disabled = false;
    if (report(response)) {
      $("#mcp-add-form").reset();
      setFormOpen(false);
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
    $("#mcp-editor-discard").addEventListener("click", reloadEditor);
    load({ replaceEditor: true }).then((ok) => {
      if (ok) follow();
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
