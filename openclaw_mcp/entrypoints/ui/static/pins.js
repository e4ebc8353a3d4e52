// Tool pins on the settings page (issue 35): the `Tool pins` panel, only when some configured server is pinned
// (or the pin store cannot be read). Loading it reads the store and never connects; `Review` (an explicit click,
// like Probe) connects the server and shows the redacted diff of each held or removed tool, as
// `openclaw mcp review <name>` prints it; `Accept` / `Accept all` pin what was shown (the server refuses with a
// conflict if the tool changed again since). Every DOM text goes through textContent (never innerHTML).
"use strict";

(() => {
  const ui = window.openclawMcpUi;
  if (!ui) return;
  const { api, el } = ui;
  const $ = (selector) => document.querySelector(selector);
  const UNAVAILABLE = "Tool pins are unavailable; refresh and try again.";
  const CHANGE_LABELS = { changed: "changed since pinned", new: "new since pinned", removed: "removed since pinned" };
  const reviews = new Map(); // server name -> { running, document, message: { kind, text } }

  const pathOf = (name, suffix) => `/api/mcp/servers/${encodeURIComponent(name)}${suffix}`;
  const errorText = (json) => (json && json.error && json.error.message) || UNAVAILABLE;

  function section() {
    let node = $("#mcp-pins");
    if (node) return node;
    node = el(
      "section",
      { class: "mcp-page__pins settings-section", id: "mcp-pins", "aria-labelledby": "mcp-pins-heading" },
      el("h2", { id: "mcp-pins-heading", class: "settings-section__heading", text: "Tool pins" }),
      el(
        "div",
        { class: "settings-card" },
        el("p", {
          class: "settings-card__text",
          text: "A pinned server's tools that changed, or are new, are held out of the agent's catalog until you accept them. Review connects the server and shows what changed.",
        }),
        el("div", { id: "mcp-pins-problem", class: "mcp-pin-message mcp-pin-message--error", role: "alert", hidden: true }),
        el("div", { id: "mcp-pins-list", class: "mcp-pins-list" }),
      ),
    );
    $(".mcp-page__servers").after(node);
    return node;
  }

  async function loadPins() {
    const { status, json } = await api("GET", "/api/mcp/pins");
    if (status === 401) return; // the page shows its token notice
    const unreadable = json && json.error && json.error.type === "unreadable";
    const servers = json && json.ok ? json.servers : [];
    if (!servers.length && !unreadable) {
      const stale = $("#mcp-pins");
      if (stale) stale.remove();
      return;
    }
    section();
    const problem = $("#mcp-pins-problem");
    problem.textContent = unreadable ? `${json.error.message}; tools of pinned servers are held.` : "";
    problem.hidden = !unreadable;
    for (const name of [...reviews.keys()]) {
      if (!servers.some((server) => server.name === name)) reviews.delete(name);
    }
    $("#mcp-pins-list").replaceChildren(...servers.map(serverElement));
  }

  function serverElement(server) {
    const state = reviews.get(server.name) || {};
    const count = `${server.tools} ${server.tools === 1 ? "tool" : "tools"}`;
    const review = el("button", {
      type: "button",
      class: "btn mcp-pin-server__review",
      text: state.running ? "Reviewing\u2026" : "Review",
      "aria-label": `Review the tools of ${server.name}`,
      disabled: state.running,
      onclick: () => runReview(server),
    });
    const node = el(
      "div",
      { class: "settings-row mcp-pin-server", "data-mcp-pin-server": server.name },
      el(
        "div",
        { class: "mcp-pin-server__bar" },
        el(
          "div",
          { class: "mcp-pin-server__info" },
          el("div", { class: "mcp-pin-server__title", text: server.name }),
          el("div", { class: "mcp-pin-server__meta", text: `${count} pinned ${server.pinnedAt} by ${server.pinnedBy}` }),
        ),
        review,
      ),
    );
    node.dataset.server = JSON.stringify(server);
    if (state.message) {
      const kind = state.message.kind;
      node.append(
        el("div", {
          class: `mcp-pin-message mcp-pin-message--${kind}`,
          role: kind === "success" ? "status" : "alert",
          text: state.message.text,
        }),
      );
    }
    if (state.document) node.append(heldList(server, state.document, state.running));
    return node;
  }

  function heldList(server, shown, busy) {
    if (!shown.tools.length) {
      return el("p", { class: "mcp-held-empty", text: "No changes since the server was pinned." });
    }
    const items = shown.tools.map((item) =>
      el(
        "li",
        { class: "mcp-held-tool", "data-mcp-held-tool": item.tool, "data-change": item.change },
        el(
          "div",
          { class: "mcp-held-tool__head" },
          el("code", { class: "mcp-held-tool__name", text: item.tool }),
          el("span", { class: `pill mcp-held-tool__change mcp-held-tool__change--${item.change}`, text: CHANGE_LABELS[item.change] || item.change }),
          el("button", {
            type: "button",
            class: "btn btn--small mcp-held-tool__accept",
            text: "Accept",
            "aria-label": `Accept ${item.tool}`,
            disabled: busy,
            onclick: () => accept(server, [item]),
          }),
        ),
        diffElement(item.diff),
      ),
    );
    const all = el("button", {
      type: "button",
      class: "btn btn--primary mcp-pin-server__accept-all",
      text: "Accept all",
      "aria-label": `Accept all changes of ${server.name}`,
      disabled: busy,
      onclick: () => accept(server, shown.tools),
    });
    return el(
      "div",
      { class: "mcp-held" },
      el("ul", { class: "mcp-held-list", "aria-label": `Held tools of ${server.name}` }, ...items),
      el("div", { class: "mcp-held__actions" }, all),
    );
  }

  function diffElement(diff) {
    const lines = (diff || "").split("\n").map((line) => {
      let kind = "context";
      if (line.startsWith("+++") || line.startsWith("---")) kind = "file";
      else if (line.startsWith("@@")) kind = "hunk";
      else if (line.startsWith("+")) kind = "add";
      else if (line.startsWith("-")) kind = "del";
      return el("span", { class: `mcp-diff__line mcp-diff__line--${kind}`, text: line });
    });
    return el("pre", { class: "mcp-held-tool__diff mcp-diff" }, ...lines);
  }

  function render() {
    for (const node of document.querySelectorAll("#mcp-pins-list .mcp-pin-server")) {
      node.replaceWith(serverElement(JSON.parse(node.dataset.server)));
    }
  }

  async function runReview(server, message) {
    const previous = reviews.get(server.name) || {};
    reviews.set(server.name, { ...previous, running: true, message: message || null });
    render();
    const { json } = await api("POST", pathOf(server.name, "/review"), {});
    if (json && json.ok) {
      reviews.set(server.name, { document: json, message: message || null });
    } else {
      reviews.set(server.name, { message: { kind: "error", text: errorText(json) } });
    }
    render();
  }

  async function accept(server, items) {
    const state = reviews.get(server.name) || {};
    reviews.set(server.name, { ...state, running: true, message: null });
    render();
    const tools = Object.fromEntries(items.map((item) => [item.tool, item.fingerprint]));
    const { json } = await api("POST", pathOf(server.name, "/accept"), { tools });
    if (json && json.ok) {
      reviews.set(server.name, { document: json, message: { kind: "success", text: json.message } });
      await loadPins();
      return;
    }
    const error = { kind: "error", text: errorText(json) };
    if (json && json.error && json.error.type === "conflict") {
      await runReview(server, error); // the server changed the tool again: show what it lists now
      return;
    }
    reviews.set(server.name, { ...state, running: false, message: error });
    render();
  }

  ui.onReady(loadPins);
})();
