// MCP Apps on the settings page (spec mcp-apps §8, §9, §13.2): the `MCP Apps` panel and the host of each
// view. A view runs in two frames: the outer one is the sandbox listener's proxy document on its own
// origin, the inner one (made by the proxy) has an opaque origin. The page talks to the proxy only by
// postMessage, checking the sender's window and origin; the app's requests reach the server through the
// page's bearer-authenticated bridge API — the sandbox origin never sees the token.
"use strict";

(() => {
  const PROTOCOL_VERSION = "2026-01-26";
  const HOST_INFO = { name: "OpenClaw", version: "1.0.0" };
  const PROXY_TIMEOUT_MS = 15000;
  const INIT_TIMEOUT_MS = 15000;
  const TEARDOWN_MS = 250;
  const MIN_HEIGHT = 160;
  const MAX_HEIGHT = 1200;
  const DEFAULT_HEIGHT = 600;

  const ui = window.openclawMcpUi;
  if (!ui) return;
  const { api, el } = ui;
  const $ = (selector) => document.querySelector(selector);

  // -- the panel -----------------------------------------------------------------------------------------

  // servers whose Open app found no app tool (this page view): marked, their button says so
  const withoutApps = new Set();
  let panelEnabled = null;

  async function loadPanel() {
    const section = $("#mcp-apps");
    const list = $("#mcp-apps-list");
    const { json } = await api("GET", "/api/mcp/apps");
    section.hidden = false;
    panelEnabled = Boolean(json && json.ok && json.enabled);
    list.replaceChildren();
    if (!json || !json.ok || !json.enabled) {
      list.append(
        el("p", {
          class: "settings-card__text mcp-apps__off",
          text: "MCP Apps are off. Enable them with openclaw config set mcp.apps.enabled true --strict-json, then restart openclaw mcp ui.",
        }),
      );
      return;
    }
    if (!json.servers.length) {
      list.append(el("p", { class: "settings-card__text", text: "No enabled MCP servers." }));
      return;
    }
    for (const name of json.servers) list.append(serverRow(name));
  }

  // the config changed (a row action, the editor, another writer): the panel follows the enabled servers,
  // keeping the rows (and open views) of the servers that stay
  let refreshing = Promise.resolve();
  function refreshPanel() {
    refreshing = refreshing.then(async () => {
      if (panelEnabled !== true) return;
      const list = $("#mcp-apps-list");
      const { json } = await api("GET", "/api/mcp/apps");
      if (!json || !json.ok || !json.enabled) return;
      const rows = new Map();
      for (const node of list.querySelectorAll(":scope > [data-mcp-app-server]")) rows.set(node.dataset.mcpAppServer, node);
      const wanted = json.servers.map((name) => rows.get(name) || serverRow(name));
      for (const [name, node] of rows) {
        if (json.servers.includes(name)) continue;
        withoutApps.delete(name);
        if (node.querySelector("iframe.mcp-app-frame")) {
          // an open view stays until it is closed: it shows that its server is gone (its calls answer "expired")
          node.classList.add("mcp-app-server--gone");
          node.dataset.mcpAppGone = "";
          wanted.push(node);
          continue;
        }
        for (const stage of node.querySelectorAll(".mcp-app-stage")) await teardownAll(stage);
      }
      if (!wanted.length) {
        list.replaceChildren(el("p", { class: "settings-card__text", text: "No enabled MCP servers." }));
        return;
      }
      // rows that stay are never moved: moving an iframe reloads it, and an open view would lose its state
      const keep = new Set(wanted);
      for (const node of [...list.children]) if (!keep.has(node)) node.remove();
      let anchor = null;
      for (let index = wanted.length - 1; index >= 0; index -= 1) {
        const node = wanted[index];
        if (node.parentNode !== list) list.insertBefore(node, anchor);
        anchor = node;
      }
    });
    return refreshing;
  }

  function markWithoutApps(row, open) {
    row.classList.add("mcp-app-server--none");
    row.dataset.mcpAppNone = "";
    open.textContent = "No app views";
    open.setAttribute("aria-label", `${row.dataset.mcpAppServer} has no app views; check again`);
  }

  function serverRow(name) {
    const tools = el("div", { class: "mcp-app-tools" });
    const message = el("div", { class: "mcp-app-message", role: "alert", hidden: true });
    const open = el("button", { class: "btn", type: "button", text: "Open app" });
    open.addEventListener("click", async () => {
      open.disabled = true;
      message.hidden = true;
      const { json } = await api("POST", "/api/mcp/apps/tools", { server: name });
      open.disabled = false;
      tools.replaceChildren();
      if (!json || !json.ok) {
        showProblem(message, errorText(json));
        return;
      }
      if (!json.tools.length) {
        withoutApps.add(name);
        markWithoutApps(row, open);
        tools.append(el("p", { class: "settings-card__text", text: "This server has no app tools." }));
        return;
      }
      withoutApps.delete(name);
      row.classList.remove("mcp-app-server--none");
      delete row.dataset.mcpAppNone;
      open.textContent = "Open app";
      open.removeAttribute("aria-label");
      for (const tool of json.tools) tools.append(toolRow(name, tool));
    });
    const row = el(
      "div",
      { class: "settings-row mcp-app-server", "data-mcp-app-server": name },
      el("div", { class: "mcp-app-server__bar" }, el("strong", { text: name }), open),
      message,
      tools,
    );
    if (withoutApps.has(name)) markWithoutApps(row, open);
    return row;
  }

  function toolRow(server, tool) {
    const id = `mcp-app-args-${server}-${tool.name}`.replace(/[^A-Za-z0-9_-]/g, "_");
    const args = el("textarea", { id, class: "mcp-app-args", rows: "2", spellcheck: "false" });
    args.value = "{}";
    const message = el("div", { class: "mcp-app-message", role: "alert", hidden: true });
    const stage = el("div", { class: "mcp-app-stage" });
    const run = el("button", { class: "btn btn--primary", type: "button", text: "Run" });
    run.addEventListener("click", async () => {
      message.hidden = true;
      let parsed;
      try {
        parsed = JSON.parse(args.value || "{}");
      } catch (error) {
        showProblem(message, `Invalid JSON: ${error.message}`);
        return;
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        showProblem(message, "Arguments must be a JSON object.");
        return;
      }
      run.disabled = true;
      await teardownAll(stage);
      const { json } = await api("POST", "/api/mcp/apps/run", { server, tool: tool.name, arguments: parsed });
      run.disabled = false;
      if (!json || !json.ok) {
        showProblem(message, `MCP App unavailable: ${errorText(json)}`);
        return;
      }
      stage.append(mountView(json.viewId, json.title));
    });
    return el(
      "div",
      { class: "mcp-app-tool", "data-mcp-app-tool": tool.name },
      el(
        "div",
        { class: "mcp-app-tool__head" },
        el("code", { text: tool.name }),
        tool.description ? el("span", { class: "mcp-app-tool__desc", text: tool.description }) : null,
      ),
      el("label", { for: id, class: "mcp-app-args__label", text: "Arguments (JSON)" }),
      args,
      el("div", { class: "mcp-app-tool__actions" }, run),
      message,
      stage,
    );
  }

  function errorText(json) {
    return (json && json.error && json.error.message) || "Request failed";
  }

  function showProblem(node, text) {
    node.textContent = text;
    node.hidden = false;
  }

  async function teardownAll(stage) {
    const views = Array.from(stage.querySelectorAll(".mcp-app-view"));
    await Promise.all(views.map((view) => (view.mcpTeardown ? view.mcpTeardown() : view.remove())));
  }

  // -- the host of one view (§8) --------------------------------------------------------------------------

  function mountView(viewId, title) {
    const status = el("div", { class: "mcp-app-view__status", role: "alert", hidden: true });
    const close = el("button", { class: "btn mcp-app-view__close", type: "button", text: "Close" });
    const frameSlot = el("div", { class: "mcp-app-view__frame" });
    const root = el(
      "div",
      { class: "mcp-app-view", "data-mcp-view-id": viewId },
      el("div", { class: "mcp-app-view__bar" }, el("span", { class: "mcp-app-view__title", text: title }), close),
      frameSlot,
      status,
    );
    const host = new ViewHost(viewId, title, frameSlot, status);
    root.mcpTeardown = async () => {
      await host.teardown();
      root.remove();
    };
    close.addEventListener("click", () => root.mcpTeardown());
    host.start();
    return root;
  }

  class ViewHost {
    constructor(viewId, title, slot, status) {
      this.viewId = viewId;
      this.title = title;
      this.slot = slot;
      this.status = status;
      this.frame = null;
      this.origin = null;
      this.view = null;
      this.nextId = 1;
      this.pending = new Map();
      this.closed = false;
      this.onMessage = (event) => this.receive(event);
      this.waiters = new Map();
    }

    fail(message) {
      this.status.textContent = `MCP App unavailable: ${message}`;
      this.status.hidden = false;
    }

    async start() {
      const { json } = await api("POST", "/api/mcp/apps/view", { viewId: this.viewId });
      if (!json || !json.ok) {
        this.fail(errorText(json));
        return;
      }
      this.view = json;
      let url;
      try {
        url = new URL(json.sandboxUrl, location.href);
      } catch (_) {
        url = null;
      }
      if (!url || url.pathname !== "/mcp-app-sandbox" || url.origin === location.origin || url.username || url.password) {
        this.fail("MCP App sandbox URL is invalid");
        return;
      }
      this.origin = url.origin;
      const frame = document.createElement("iframe");
      frame.title = this.title || "MCP App";
      frame.referrerPolicy = "origin";
      frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
      frame.style.height = `${DEFAULT_HEIGHT}px`;
      frame.className = "mcp-app-frame";
      this.frame = frame;
      window.addEventListener("message", this.onMessage);
      const ready = this.waitFor("ui/notifications/sandbox-proxy-ready", PROXY_TIMEOUT_MS);
      frame.src = url.href;
      this.slot.append(frame);
      if (!(await ready)) {
        if (!this.closed) this.fail("MCP App sandbox timed out");
        return;
      }
      const initialized = this.waitFor("ui/notifications/initialized", INIT_TIMEOUT_MS);
      const resource = { html: json.html, renderId: "r1" };
      if (json.csp) resource.csp = json.csp;
      if (json.permissions) resource.permissions = json.permissions;
      this.post({ jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready", params: resource });
      if (!(await initialized)) {
        if (!this.closed) this.fail("MCP App initialization timed out");
        return;
      }
      await twoFrames();
      const input = json.toolInput;
      const args = input && typeof input === "object" && !Array.isArray(input) ? input : {};
      this.notify("ui/notifications/tool-input", { arguments: args });
      this.notify("ui/notifications/tool-result", json.toolResult || { content: [] });
    }

    waitFor(method, timeoutMs) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          this.waiters.delete(method);
          resolve(false);
        }, timeoutMs);
        this.waiters.set(method, () => {
          clearTimeout(timer);
          this.waiters.delete(method);
          resolve(true);
        });
      });
    }

    post(message) {
      if (!this.closed && this.frame && this.frame.contentWindow) this.frame.contentWindow.postMessage(message, this.origin);
    }

    notify(method, params) {
      this.post({ jsonrpc: "2.0", method, params });
    }

    request(method, params, timeoutMs) {
      const id = `host-${this.nextId++}`;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          this.pending.delete(id);
          resolve(null);
        }, timeoutMs);
        this.pending.set(id, (message) => {
          clearTimeout(timer);
          resolve(message);
        });
        this.post({ jsonrpc: "2.0", id, method, params });
      });
    }

    receive(event) {
      if (!this.frame || event.source !== this.frame.contentWindow || event.origin !== this.origin) return;
      const message = event.data;
      if (!message || typeof message !== "object" || message.jsonrpc !== "2.0") return;
      if (typeof message.method === "string") {
        const waiter = this.waiters.get(message.method);
        if (waiter) waiter();
        if ("id" in message && message.id !== null && message.id !== undefined) this.answer(message);
        else this.onNotification(message.method, message.params || {});
        return;
      }
      if ("id" in message) {
        const settle = this.pending.get(message.id);
        if (settle) {
          this.pending.delete(message.id);
          settle(message);
        }
      }
    }

    onNotification(method, params) {
      if (method === "ui/notifications/size-changed") {
        const height = Number(params.height);
        if (Number.isFinite(height)) {
          this.frame.style.height = `${Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.round(height)))}px`;
        }
      } else if (method === "ui/notifications/request-teardown") {
        const root = this.slot.closest(".mcp-app-view");
        if (root && root.mcpTeardown) root.mcpTeardown();
      }
    }

    async answer(message) {
      const reply = (body) => this.post({ jsonrpc: "2.0", id: message.id, ...body });
      try {
        const result = await this.handle(message.method, message.params || {});
        reply({ result });
      } catch (error) {
        reply({ error: { code: error.code || -32000, message: error.message || "Request failed" } });
      }
    }

    async bridge(method, body) {
      const { json } = await api("POST", `/api/mcp/apps/${method}`, { viewId: this.viewId, ...body });
      if (!json || !json.ok) {
        const text = errorText(json);
        if (json && json.error && json.error.code === "MCP_APP_VIEW_EXPIRED") this.fail(text);
        throw Object.assign(new Error(text), { code: -32000 });
      }
      return json.result;
    }

    async handle(method, params) {
      switch (method) {
        case "ui/initialize":
          return {
            protocolVersion: PROTOCOL_VERSION,
            hostInfo: HOST_INFO,
            hostCapabilities: {
              openLinks: {},
              serverTools: {},
              serverResources: {},
              sandbox: { csp: (this.view && this.view.csp) || {} },
            },
            hostContext: hostContext(this.frame),
          };
        case "ping":
          return {};
        case "tools/call":
          return this.bridge("callTool", { toolName: params.name, arguments: params.arguments || {} });
        case "tools/list":
          return this.bridge("listTools", { cursor: params.cursor });
        case "resources/list":
          return this.bridge("listResources", { cursor: params.cursor });
        case "resources/templates/list":
          return this.bridge("listResourceTemplates", { cursor: params.cursor });
        case "resources/read":
          return this.bridge("readResource", { uri: params.uri });
        case "ui/update-model-context":
          return this.bridge("updateModelContext", {
            content: params.content,
            structuredContent: params.structuredContent,
          });
        case "ui/open-link":
          return openLink(params.url);
        case "ui/request-display-mode":
          return { mode: "inline" };
        case "ui/message":
        case "ui/download-file":
          return { isError: true };
        default:
          throw Object.assign(new Error("Method not found"), { code: -32601 });
      }
    }

    async teardown() {
      if (this.closed) return;
      if (this.frame && this.origin) await this.request("ui/resource-teardown", {}, TEARDOWN_MS);
      this.closed = true;
      window.removeEventListener("message", this.onMessage);
      for (const settle of this.pending.values()) settle(null);
      this.pending.clear();
      if (this.frame) this.frame.remove();
      this.frame = null;
    }
  }

  function openLink(raw) {
    let url;
    try {
      url = new URL(String(raw));
    } catch (_) {
      return { isError: true };
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return { isError: true };
    const opened = window.open(url.href, "_blank", "noopener,noreferrer");
    void opened;
    return {};
  }

  function twoFrames() {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, 1000);
      requestAnimationFrame(() =>
        requestAnimationFrame(() => {
          clearTimeout(timer);
          resolve();
        }),
      );
    });
  }

  function hostContext(frame) {
    const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    const touch = navigator.maxTouchPoints > 0;
    const hover = !window.matchMedia || window.matchMedia("(hover: hover)").matches;
    const style = getComputedStyle(document.documentElement);
    const variable = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
    return {
      theme: dark ? "dark" : "light",
      displayMode: "inline",
      availableDisplayModes: ["inline"],
      containerDimensions: { width: frame ? frame.clientWidth : 0, height: frame ? frame.clientHeight : DEFAULT_HEIGHT },
      locale: navigator.language || "en-US",
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: touch && window.innerWidth < 768 ? "mobile" : "web",
      deviceCapabilities: { touch, hover },
      safeAreaInsets: { top: 0, right: 0, bottom: 0, left: 0 },
      styles: {
        variables: {
          "--color-text-primary": variable("--text", dark ? "#e6e6e6" : "#1a1a1a"),
          "--color-background-primary": variable("--bg", dark ? "#111" : "#fff"),
          "--font-sans": variable("--font-sans", "system-ui, sans-serif"),
          "--border-radius-md": variable("--radius", "8px"),
        },
      },
    };
  }

  ui.onReady(loadPanel);
  if (ui.onChange) ui.onChange(() => refreshPanel());
})();
