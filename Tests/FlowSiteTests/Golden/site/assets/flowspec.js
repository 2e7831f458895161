/* flowspec default theme: tag filter on the index, the "/" shortcut to search, copy buttons on
   code blocks ("copy as curl" on requests), the language switch keeping the place on the page,
   and details opened for printing. No network; labels come from data attributes. */
(function () {
  "use strict";

  function params() {
    try { return new URLSearchParams(window.location.search); } catch (e) { return new URLSearchParams(""); }
  }

  function setQuery(key, value) {
    try {
      var url = new URL(window.location.href);
      if (value) { url.searchParams.set(key, value); } else { url.searchParams.delete(key); }
      window.history.replaceState(null, "", url.toString());
    } catch (e) { /* file:// may refuse; the filter still works */ }
  }

  function setupTagFilter() {
    var list = document.getElementById("flow-list");
    var nav = document.querySelector(".tag-filter");
    if (!list || !nav) { return; }
    var cards = Array.prototype.slice.call(list.querySelectorAll(".flow-card"));
    var links = Array.prototype.slice.call(nav.querySelectorAll("a.tag"));
    var status = document.getElementById("filter-status");

    function apply(tag) {
      var shown = 0;
      cards.forEach(function (card) {
        var tags = [];
        try { tags = JSON.parse(card.getAttribute("data-tags") || "[]"); } catch (e) { tags = []; }
        var visible = !tag || tags.indexOf(tag) !== -1;
        card.hidden = !visible;
        if (visible) { shown += 1; }
      });
      links.forEach(function (link) {
        if ((link.getAttribute("data-tag") || "") === tag) { link.setAttribute("aria-current", "page"); }
        else { link.removeAttribute("aria-current"); }
      });
      if (status) {
        status.textContent = tag
          ? (status.getAttribute("data-template") || "{n}/{total}").replace("{n}", String(shown)).replace("{total}", status.getAttribute("data-total") || String(cards.length))
          : "";
      }
    }

    links.forEach(function (link) {
      link.addEventListener("click", function (event) {
        event.preventDefault();
        var tag = link.getAttribute("data-tag") || "";
        apply(tag);
        setQuery("tag", tag);
      });
    });
    apply(params().get("tag") || "");
  }

  function setupShortcut() {
    document.addEventListener("keydown", function (event) {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) { return; }
      var target = event.target;
      var tag = target && target.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable)) { return; }
      var input = document.getElementById("search-q") || document.getElementById("site-search-q");
      if (input) { event.preventDefault(); input.focus(); input.select(); }
    });
  }

  function copyText(text, button) {
    var done = function () {
      var label = button.textContent;
      button.textContent = document.body.getAttribute("data-label-copied") || "Copied";
      setTimeout(function () { button.textContent = label; }, 1500);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, function () {});
    }
  }

  function button(label, onClick) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "copy-button";
    b.textContent = label;
    b.addEventListener("click", onClick);
    return b;
  }

  /* A "Copy" button on every code block; "Copy as curl" where the page gives the command. */
  function setupCopyButtons() {
    var copy = document.body.getAttribute("data-label-copy") || "Copy";
    var curl = document.body.getAttribute("data-label-copy-curl") || "Copy as curl";
    Array.prototype.forEach.call(document.querySelectorAll("pre"), function (pre) {
      var bar = document.createElement("div");
      bar.className = "copy-bar";
      bar.appendChild(button(copy, function (event) { copyText(pre.textContent, event.currentTarget); }));
      var figure = pre.closest ? pre.closest("[data-curl]") : null;
      if (figure) {
        bar.appendChild(button(curl, function (event) { copyText(figure.getAttribute("data-curl"), event.currentTarget); }));
      }
      pre.parentNode.insertBefore(bar, pre);
    });
  }

  /* Switching language keeps the step or heading in view: every translation has the same anchors. */
  function setupTranslationLinks() {
    Array.prototype.forEach.call(document.querySelectorAll(".translations a[hreflang]"), function (link) {
      link.addEventListener("click", function () {
        if (window.location.hash) { link.setAttribute("href", link.getAttribute("href").split("#")[0] + window.location.hash); }
      });
    });
  }

  /* Printing shows every token case: closed details are opened for the print and closed after. */
  function setupPrint() {
    var opened = [];
    window.addEventListener("beforeprint", function () {
      opened = Array.prototype.filter.call(document.querySelectorAll("details:not([open])"), function (d) { d.open = true; return true; });
    });
    window.addEventListener("afterprint", function () {
      opened.forEach(function (d) { d.open = false; });
      opened = [];
    });
  }

  function start() {
    setupTagFilter();
    setupShortcut();
    setupCopyButtons();
    setupTranslationLinks();
    setupPrint();
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
