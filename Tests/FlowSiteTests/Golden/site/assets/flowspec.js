/* flowspec default theme: tag filter on the index and the "/" shortcut to search. No network. */
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

  function start() {
    setupTagFilter();
    setupShortcut();
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
