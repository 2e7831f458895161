/* flowspec client-side search over assets/search-index.js (a script, not fetched JSON, so it
   also works from file://). Results are built with DOM nodes and textContent only. */
(function () {
  "use strict";

  var MAX_RESULTS = 60;
  var prepared = null;

  function fold(text) {
    return String(text || "")
      .toLowerCase()
      .replace(/đ/g, "d").replace(/ı/g, "i")
      .normalize("NFD").replace(/[\u0300-\u036f]/g, "");
  }

  function prepare() {
    if (prepared) { return prepared; }
    var entries = window.flowspecSearchIndex || [];
    prepared = entries.map(function (entry, index) {
      return {
        index: index, href: entry[0], title: entry[1], context: entry[2], text: entry[3], lang: entry[4],
        foldedTitle: fold(entry[1]), foldedAll: fold(entry[1] + " " + entry[2] + " " + entry[3])
      };
    });
    return prepared;
  }

  function terms(query) {
    return fold(query).split(/[^\p{L}\p{N}_.@-]+/u).filter(function (t) { return t.length > 0; });
  }

  function score(entry, words) {
    var total = 0;
    for (var i = 0; i < words.length; i++) {
      var word = words[i];
      var at = entry.foldedAll.indexOf(word);
      if (at === -1) { return 0; }
      total += 1;
      if (entry.foldedTitle.indexOf(word) !== -1) { total += 3; }
      if (at === 0 || /[^\p{L}\p{N}]/u.test(entry.foldedAll.charAt(at - 1))) { total += 1; }
    }
    if (entry.href.indexOf("#") === -1) { total += 0.5; }
    return total;
  }

  function search(query) {
    var words = terms(query);
    if (words.length === 0) { return []; }
    var results = [];
    prepare().forEach(function (entry) {
      var s = score(entry, words);
      if (s > 0) { results.push({ entry: entry, score: s }); }
    });
    results.sort(function (a, b) { return b.score - a.score || a.entry.index - b.entry.index; });
    return results.slice(0, MAX_RESULTS);
  }

  /* Appends text to a node, wrapping matches of `words` in <mark>. Folding keeps string length
     for the letters used here, so offsets in the folded text match the original. */
  function appendHighlighted(node, text, words) {
    var folded = fold(text);
    if (folded.length !== text.length) { node.appendChild(document.createTextNode(text)); return; }
    var marks = [];
    words.forEach(function (word) {
      var from = 0, at;
      while ((at = folded.indexOf(word, from)) !== -1) { marks.push([at, at + word.length]); from = at + word.length; }
    });
    marks.sort(function (a, b) { return a[0] - b[0]; });
    var pos = 0;
    marks.forEach(function (m) {
      if (m[0] < pos) { return; }
      node.appendChild(document.createTextNode(text.slice(pos, m[0])));
      var mark = document.createElement("mark");
      mark.textContent = text.slice(m[0], m[1]);
      node.appendChild(mark);
      pos = m[1];
    });
    node.appendChild(document.createTextNode(text.slice(pos)));
  }

  function snippet(text, words) {
    var folded = fold(text);
    var at = -1;
    for (var i = 0; i < words.length && at === -1; i++) { at = folded.indexOf(words[i]); }
    if (at <= 60) { return text.length > 200 ? text.slice(0, 200) + "…" : text; }
    var start = text.lastIndexOf(" ", at - 50);
    start = start < 0 ? at - 50 : start + 1;
    var end = Math.min(text.length, start + 200);
    return "…" + text.slice(start, end) + (end < text.length ? "…" : "");
  }

  function render(query) {
    var list = document.getElementById("search-results");
    var status = document.getElementById("search-status");
    if (!list || !status) { return; }
    while (list.firstChild) { list.removeChild(list.firstChild); }
    var words = terms(query);
    if (words.length === 0) { status.textContent = ""; return; }
    var results = search(query);
    status.textContent = results.length === 0
      ? status.getAttribute("data-none")
      : ((results.length === 1 && status.getAttribute("data-count-one")) || status.getAttribute("data-count") || "{n}").replace("{n}", String(results.length));
    results.forEach(function (result) {
      var entry = result.entry;
      var item = document.createElement("li");
      item.className = "search-result";
      var link = document.createElement("a");
      link.setAttribute("href", entry.href);
      link.setAttribute("lang", entry.lang);
      appendHighlighted(link, entry.title, words);
      item.appendChild(link);
      if (entry.context) {
        var context = document.createElement("span");
        context.className = "result-context";
        context.textContent = entry.context;
        item.appendChild(context);
      }
      if (entry.text) {
        var p = document.createElement("p");
        p.className = "result-snippet";
        appendHighlighted(p, snippet(entry.text, words), words);
        item.appendChild(p);
      }
      list.appendChild(item);
    });
  }

  function start() {
    var input = document.getElementById("search-q");
    var query = "";
    try { query = new URLSearchParams(window.location.search).get("q") || ""; } catch (e) { query = ""; }
    if (input) {
      input.value = query;
      var timer = null;
      input.addEventListener("input", function () {
        clearTimeout(timer);
        timer = setTimeout(function () {
          render(input.value);
          try {
            var url = new URL(window.location.href);
            url.searchParams.set("q", input.value);
            window.history.replaceState(null, "", url.toString());
          } catch (e) { /* file:// may refuse */ }
        }, 120);
      });
      if (!query) { input.focus(); }
    }
    var header = document.getElementById("site-search-q");
    if (header) { header.value = query; }
    render(query);
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
