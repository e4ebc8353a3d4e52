// The blockDescendantFrames guard (spec mcp-apps §7.5; issue 32): injected by the sandbox proxy as the first
// script of an app's document when the view's CSP sets blockDescendantFrames, so it runs before any app code.
// Goal: no nested browsing context and no working RTCPeerConnection in any realm the app can reach.
//
// Layers (each one alone is meant to hold; together they back each other up):
//  1. WebRTC constructors are removed from the window (non-configurable), and window.open is refused.
//  2. Element creation: createElement/createElementNS and customized built-ins of frame elements throw.
//  3. Insertion: every DOM method that puts a node into a tree checks the node's whole subtree (shadow roots
//     included) for frame elements first; this covers nodes built in other documents (DOMParser,
//     parseHTMLUnsafe, XSLT, XML entities, templates, clones, adoption).
//  4. Markup: every HTML string sink refuses frame markup (and Trusted Types' default policy does the same for
//     sinks this list would miss, with the header `require-trusted-types-for 'script'`); document.write while
//     the document is loading may not write tags at all (a write could change how the rest of the source is
//     tokenized), and never a dangling tag.
//  5. Backstops: a MutationObserver removes any frame element that still appears; a frame found alive (a child
//     browsing context) empties the document. The proxy also watches the app frame from outside.
// Everything the guard calls is captured before app code runs, so later changes to prototypes cannot
// blind it.
(function guard() {
  "use strict";
  var REFUSED = "sandbox descendant browsing contexts are disabled";
  var NAMES = ["iframe", "frame", "frameset", "object", "embed", "portal", "fencedframe", "webview", "browser"];
  var SELECTOR = NAMES.join(",");
  var MARKUP = /<[\s\/]*(?:[A-Za-z0-9._-]*:)?(?:iframe|frameset|frame|object|embed|portal|fencedframe|webview|browser)(?![A-Za-z0-9_.])/i;
  var DANGLING = /<[^>]*$/;
  var ANY_TAG = /<[A-Za-z!\/?]/;

  var G = window;
  var Obj = Object, Reflect_ = Reflect, Str = String, Err = Error, WM = WeakMap;
  var apply = Reflect_.apply, define = Obj.defineProperty, describe = Obj.getOwnPropertyDescriptor;
  var test = RegExp.prototype.test, toLower = Str.prototype.toLowerCase, lastIndexOf = Str.prototype.lastIndexOf;
  var slice = Str.prototype.slice, indexOf = Str.prototype.indexOf;
  var wmGet = WM.prototype.get, wmSet = WM.prototype.set;
  var consoleError = G.console && G.console.error;
  var setTimeout_ = G.setTimeout;

  function refuse() {
    throw new Err(REFUSED);
  }
  function report() {
    try { if (consoleError) apply(consoleError, G.console, [REFUSED]); } catch (ignored) { /* no console */ }
  }
  function getterOf(target, key) {
    var d = target && describe(target, key);
    return d && d.get;
  }
  function lower(value) {
    return apply(toLower, value, []);
  }
  function matches(re, text) {
    re.lastIndex = 0;
    return apply(test, re, [text]);
  }
  function pin(target, key, value) {
    try { define(target, key, { value: value, writable: false, enumerable: false, configurable: false }); }
    catch (ignored) { try { target[key] = value; } catch (alsoIgnored) { /* frozen */ } }
  }

  var NodeProto = G.Node.prototype, ElementProto = G.Element.prototype, DocProto = G.Document.prototype;
  var FragProto = G.DocumentFragment.prototype;
  var nodeTypeOf = getterOf(NodeProto, "nodeType");
  var localNameOf = getterOf(ElementProto, "localName");
  var shadowRootOf = getterOf(ElementProto, "shadowRoot");
  var listLength = getterOf(G.NodeList.prototype, "length");
  var windowLength = getterOf(G, "length");
  var readyStateOf = getterOf(DocProto, "readyState");
  var elementQSA = ElementProto.querySelectorAll, fragmentQSA = FragProto.querySelectorAll;
  var documentQSA = DocProto.querySelectorAll, removeNode = ElementProto.remove;
  var replaceAll = DocProto.replaceChildren;
  var roots = new WM(); // element -> shadow root, for the closed ones the guard saw being made

  // -- 1. WebRTC and other realms ----------------------------------------------------------------------
  var doomed = ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCIceGatherer", "RTCIceTransport",
    "RTCDtlsTransport", "RTCSctpTransport", "RTCDataChannel", "RTCQuicTransport", "documentPictureInPicture"];
  Obj.getOwnPropertyNames(G).forEach(function (key) {
    if (/^(?:webkit|moz)?RTC/.test(key)) doomed.push(key);
  });
  doomed.forEach(function (key) { pin(G, key, undefined); });
  var openWindow = G.open;
  if (typeof openWindow === "function") pin(G, "open", function open() { report(); return null; });

  // -- 3. what counts as a frame ------------------------------------------------------------------------
  function blockedName(name) {
    var local = lower(Str(name));
    local = apply(slice, local, [apply(lastIndexOf, local, [":"]) + 1]);
    return NAMES.indexOf(local) >= 0;
  }
  function typeOf(node) {
    if (node === null || (typeof node !== "object" && typeof node !== "function")) return 0;
    try { return apply(nodeTypeOf, node, []); } catch (notNode) { return 0; }
  }
  function rootOf(element) {
    var open = apply(shadowRootOf, element, []);
    return open || apply(wmGet, roots, [element]) || null;
  }
  function hasFrame(node) {
    var type = typeOf(node), found, all, count, i, root;
    if (type === 1) {
      if (blockedName(apply(localNameOf, node, []))) return true;
      found = apply(elementQSA, node, [SELECTOR]);
      all = apply(elementQSA, node, ["*"]);
      root = rootOf(node);
      if (root && hasFrame(root)) return true;
    } else if (type === 11) {
      found = apply(fragmentQSA, node, [SELECTOR]);
      all = apply(fragmentQSA, node, ["*"]);
    } else if (type === 9) {
      found = apply(documentQSA, node, [SELECTOR]);
      all = apply(documentQSA, node, ["*"]);
    } else {
      return false;
    }
    if (apply(listLength, found, []) > 0) return true;
    count = apply(listLength, all, []);
    for (i = 0; i < count; i += 1) {
      root = rootOf(all[i]);
      if (root && hasFrame(root)) return true;
    }
    return false;
  }
  function checkNodes(args) {
    for (var i = 0; i < args.length; i += 1) if (hasFrame(args[i])) refuse();
  }
  function checkMarkup(text) {
    if (matches(MARKUP, text)) refuse();
  }

  // -- 5. backstops -------------------------------------------------------------------------------------
  function removeFrames(scope) {
    var type = typeOf(scope), list, count, i, all, root;
    if (type === 9) { list = apply(documentQSA, scope, [SELECTOR]); all = apply(documentQSA, scope, ["*"]); }
    else if (type === 11) { list = apply(fragmentQSA, scope, [SELECTOR]); all = apply(fragmentQSA, scope, ["*"]); }
    else if (type === 1) { list = apply(elementQSA, scope, [SELECTOR]); all = apply(elementQSA, scope, ["*"]); }
    else return 0;
    count = apply(listLength, list, []);
    for (i = 0; i < count; i += 1) apply(removeNode, list[i], []);
    var removed = count;
    var total = apply(listLength, all, []);
    for (i = 0; i < total; i += 1) {
      root = rootOf(all[i]);
      if (root) removed += removeFrames(root);
    }
    return removed;
  }
  function sweep() {
    var removed = removeFrames(document);
    if (windowLength && apply(windowLength, G, []) > 0) {
      // a child browsing context the guard cannot reach (e.g. in a closed shadow root it never saw)
      try { apply(replaceAll, document, []); } catch (ignored) { /* nothing left to remove */ }
      removed += 1;
    }
    if (removed > 0) report();
    return removed;
  }
  function afterInsert() {
    if (windowLength && apply(windowLength, G, []) > 0 && sweep() > 0) refuse();
  }

  // -- wrappers -----------------------------------------------------------------------------------------
  function wrapMethod(proto, key, check, after) {
    var original = proto && describe(proto, key);
    if (!original || typeof original.value !== "function") return;
    var fn = original.value;
    var wrapped = {
      [key]: function () {
        var args = [];
        for (var i = 0; i < arguments.length; i += 1) args[i] = arguments[i];
        check(args, this);
        var result = apply(fn, this, args);
        if (after) after(result, this, args);
        return result;
      },
    }[key];
    pin(proto, key, wrapped);
  }
  function wrapSetter(proto, key) {
    var d = proto && describe(proto, key);
    if (!d || !d.set) return;
    var set = d.set;
    try {
      define(proto, key, {
        get: d.get,
        set: function (value) {
          var text = Str(value);
          checkMarkup(text);
          apply(set, this, [text]);
          afterInsert();
        },
        enumerable: d.enumerable,
        configurable: false,
      });
    } catch (ignored) { /* already pinned */ }
  }
  function markupAt(index) {
    return function (args) {
      if (args.length > index) {
        args[index] = Str(args[index]);
        checkMarkup(args[index]);
      }
    };
  }
  function nodes(args) {
    checkNodes(args);
  }
  function inserted() {
    afterInsert();
  }

  // 2. creation
  wrapMethod(DocProto, "createElement", function (args) { if (args.length) { args[0] = Str(args[0]); if (blockedName(args[0])) refuse(); } });
  wrapMethod(DocProto, "createElementNS", function (args) { if (args.length > 1) { args[1] = Str(args[1]); if (blockedName(args[1])) refuse(); } });
  if (G.CustomElementRegistry) {
    wrapMethod(G.CustomElementRegistry.prototype, "define", function (args) {
      var options = args[2];
      if (options && typeof options === "object") {
        var base = options["extends"];
        if (base !== undefined && blockedName(base)) refuse();
      }
    });
  }

  // 3. insertion (every argument that is a node is checked, strings become text)
  [
    [NodeProto, ["appendChild", "insertBefore", "replaceChild"]],
    [ElementProto, ["append", "prepend", "replaceChildren", "before", "after", "replaceWith", "insertAdjacentElement", "moveBefore"]],
    [DocProto, ["append", "prepend", "replaceChildren", "moveBefore", "adoptNode", "importNode"]],
    [FragProto, ["append", "prepend", "replaceChildren", "moveBefore"]],
    [G.CharacterData && G.CharacterData.prototype, ["before", "after", "replaceWith"]],
    [G.DocumentType && G.DocumentType.prototype, ["before", "after", "replaceWith"]],
    [G.Range && G.Range.prototype, ["insertNode", "surroundContents"]],
  ].forEach(function (entry) {
    entry[1].forEach(function (key) { wrapMethod(entry[0], key, nodes, inserted); });
  });
  var bodySetter = describe(DocProto, "body");
  if (bodySetter && bodySetter.set) {
    var setBody = bodySetter.set;
    define(DocProto, "body", {
      get: bodySetter.get,
      set: function (value) { checkNodes([value]); apply(setBody, this, [value]); afterInsert(); },
      enumerable: bodySetter.enumerable,
      configurable: false,
    });
  }

  // shadow roots: remember the closed ones, watch all of them
  var observer = null;
  var observe = G.MutationObserver && G.MutationObserver.prototype.observe;
  function watch(root) {
    if (observer) {
      try { apply(observe, observer, [root, { childList: true, subtree: true }]); } catch (ignored) { /* gone */ }
    }
  }
  wrapMethod(ElementProto, "attachShadow", function () {}, function (root, host) {
    apply(wmSet, roots, [host, root]);
    watch(root);
  });
  if (G.ElementInternals) {
    var internalsRoot = describe(G.ElementInternals.prototype, "shadowRoot");
    if (internalsRoot && internalsRoot.get) {
      var getRoot = internalsRoot.get;
      define(G.ElementInternals.prototype, "shadowRoot", {
        get: function () {
          var root = apply(getRoot, this, []);
          if (root) {
            var host = getterOf(G.ShadowRoot.prototype, "host");
            if (host) apply(wmSet, roots, [apply(host, root, []), root]);
            watch(root);
          }
          return root;
        },
        enumerable: internalsRoot.enumerable,
        configurable: false,
      });
    }
  }

  // 4. markup sinks
  wrapSetter(ElementProto, "innerHTML");
  wrapSetter(ElementProto, "outerHTML");
  if (G.ShadowRoot) wrapSetter(G.ShadowRoot.prototype, "innerHTML");
  wrapMethod(ElementProto, "insertAdjacentHTML", markupAt(1), inserted);
  wrapMethod(ElementProto, "setHTML", markupAt(0), inserted);
  wrapMethod(ElementProto, "setHTMLUnsafe", markupAt(0), inserted);
  if (G.ShadowRoot) {
    wrapMethod(G.ShadowRoot.prototype, "setHTML", markupAt(0), inserted);
    wrapMethod(G.ShadowRoot.prototype, "setHTMLUnsafe", markupAt(0), inserted);
  }
  if (G.Range) wrapMethod(G.Range.prototype, "createContextualFragment", markupAt(0));
  if (G.DOMParser) wrapMethod(G.DOMParser.prototype, "parseFromString", markupAt(0));
  wrapMethod(G.Document, "parseHTMLUnsafe", markupAt(0));
  wrapMethod(G.Document, "parseHTML", markupAt(0));
  function writes(args) {
    var text = "";
    for (var i = 0; i < args.length; i += 1) {
      args[i] = Str(args[i]);
      text += args[i];
    }
    checkMarkup(text);
    if (matches(DANGLING, text)) refuse();
    if (readyStateOf && apply(readyStateOf, document, []) === "loading" && matches(ANY_TAG, text)) refuse();
  }
  wrapMethod(DocProto, "write", writes, inserted);
  wrapMethod(DocProto, "writeln", writes, inserted);
  wrapMethod(DocProto, "open", function (args) { if (args.length > 2) refuse(); });
  wrapMethod(DocProto, "execCommand", function (args) {
    if (args.length > 2) {
      args[2] = Str(args[2]);
      checkMarkup(args[2]);
      if (lower(Str(args[0])) === "inserthtml" && apply(indexOf, lower(args[2]), ["shadowroot"]) >= 0) refuse();
    }
  }, inserted);
  if (G.XSLTProcessor) {
    var xsltResult = function (result) { if (hasFrame(result)) refuse(); };
    wrapMethod(G.XSLTProcessor.prototype, "transformToFragment", function () {}, xsltResult);
    wrapMethod(G.XSLTProcessor.prototype, "transformToDocument", function () {}, xsltResult);
  }

  // Trusted Types: the browser sends every HTML sink through the default policy, and every policy's HTML
  // through this check (the sandbox header requires Trusted Types for this view).
  var tt = G.trustedTypes;
  if (tt && typeof tt.createPolicy === "function") {
    var createPolicy = tt.createPolicy;
    var checkedPolicy = function (options) {
      var out = {};
      var html = options && options.createHTML;
      if (typeof html === "function") {
        out.createHTML = function () {
          var value = Str(apply(html, this, arguments));
          checkMarkup(value);
          return value;
        };
      }
      if (options && typeof options.createScript === "function") out.createScript = options.createScript;
      if (options && typeof options.createScriptURL === "function") out.createScriptURL = options.createScriptURL;
      return out;
    };
    try {
      apply(createPolicy, tt, ["default", {
        createHTML: function (value) { var text = Str(value); checkMarkup(text); return text; },
        // a javascript: URL navigation would replace the document (and its guarded realm): refused
        createScript: function (value, type, sink) {
          return matches(/^Location\b|navigat/i, Str(sink)) ? null : Str(value);
        },
        createScriptURL: function (value) { return Str(value); },
      }]);
    } catch (ignored) { /* Trusted Types unavailable */ }
    var factory = G.TrustedTypePolicyFactory && G.TrustedTypePolicyFactory.prototype;
    if (factory) {
      wrapMethod(factory, "createPolicy", function (args) {
        if (lower(Str(args[0])) === "default") refuse();
        args[1] = checkedPolicy(args[1]);
      });
    }
  }

  // 5. the observer backstop
  var addedOf = G.MutationRecord && getterOf(G.MutationRecord.prototype, "addedNodes");
  if (G.MutationObserver && addedOf) {
    observer = new G.MutationObserver(function (records) {
      var removed = 0;
      for (var i = 0; i < records.length; i += 1) {
        var added = apply(addedOf, records[i], []);
        var count = apply(listLength, added, []);
        for (var j = 0; j < count; j += 1) {
          var node = added[j];
          if (!hasFrame(node)) continue;
          if (typeOf(node) === 1 && blockedName(apply(localNameOf, node, []))) { apply(removeNode, node, []); removed += 1; }
          else removed += removeFrames(node);
        }
      }
      if (removed > 0) report();
      if (windowLength && apply(windowLength, G, []) > 0) sweep();
    });
    watch(document);
  }
})();
