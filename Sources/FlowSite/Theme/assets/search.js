/* flowspec client-side search over the prebuilt index shards (scripts, not fetched JSON, so it
   also works from file://). On search.html: results as you type, grouped by flow, filtered by
   language. On every other page: the header field answers as you type, loading the index only
   when it is first used (assets/search/shards.js lists the shards that hold entries). Results
   are built with DOM nodes and textContent only. */
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

  function resultItem(entry, words, root) {
    var item = document.createElement("li");
    item.className = "search-result";
    var link = document.createElement("a");
    link.setAttribute("href", root + entry.href);
    link.setAttribute("lang", entry.lang);
    appendHighlighted(link, entry.title, words);
    item.appendChild(link);
    if (entry.text) {
      var p = document.createElement("p");
      p.className = "result-snippet";
      appendHighlighted(p, snippet(entry.text, words), words);
      item.appendChild(p);
    }
    return item;
  }

  /* Results grouped by flow (the page part of the link), groups in order of their best result. */
  function grouped(results) {
    var groups = [], byPage = {};
    results.forEach(function (result) {
      var page = result.entry.href.split("#")[0];
      if (!byPage[page]) {
        byPage[page] = { title: result.entry.context || result.entry.title, lang: result.entry.lang, results: [] };
        groups.push(byPage[page]);
      }
      byPage[page].results.push(result);
    });
    return groups;
  }

  function countText(status, n) {
    if (n === 0) { return status.getAttribute("data-none"); }
    return ((n === 1 && status.getAttribute("data-count-one")) || status.getAttribute("data-count") || "{n}").replace("{n}", String(n));
  }

  function render(query, lang) {
    var list = document.getElementById("search-results");
    var status = document.getElementById("search-status");
    if (!list || !status) { return; }
    while (list.firstChild) { list.removeChild(list.firstChild); }
    var words = terms(query);
    if (words.length === 0) { status.textContent = ""; return; }
    var results = search(query).filter(function (r) { return !lang || r.entry.lang === lang; });
    status.textContent = countText(status, results.length);
    grouped(results).forEach(function (group) {
      var item = document.createElement("li");
      item.className = "search-group";
      var heading = document.createElement("h2");
      heading.className = "search-group-title";
      heading.setAttribute("lang", group.lang);
      heading.textContent = group.title;
      item.appendChild(heading);
      var inner = document.createElement("ol");
      group.results.forEach(function (result) { inner.appendChild(resultItem(result.entry, words, "")); });
      item.appendChild(inner);
      list.appendChild(item);
    });
  }

  function setParam(key, value) {
    try {
      var url = new URL(window.location.href);
      if (value) { url.searchParams.set(key, value); } else { url.searchParams.delete(key); }
      window.history.replaceState(null, "", url.toString());
    } catch (e) { /* file:// may refuse */ }
  }

  /* The language filter offers the languages the index holds. */
  function setupLanguages(select, current) {
    if (!select) { return; }
    var seen = {};
    prepare().forEach(function (entry) { seen[entry.lang] = true; });
    Object.keys(seen).sort().forEach(function (lang) {
      var option = document.createElement("option");
      option.value = lang;
      option.textContent = (select.getAttribute("data-name-" + lang) || lang);
      select.appendChild(option);
    });
    select.value = current;
  }

  function startSearchPage(input) {
    var params;
    try { params = new URLSearchParams(window.location.search); } catch (e) { params = new URLSearchParams(""); }
    var query = params.get("q") || "";
    var select = document.getElementById("search-lang");
    setupLanguages(select, params.get("lang") || "");
    var update = function () {
      render(input.value, select ? select.value : "");
      setParam("q", input.value);
      setParam("lang", select ? select.value : "");
    };
    input.value = query;
    var timer = null;
    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(update, 120); });
    if (select) { select.addEventListener("change", update); }
    if (!query) { input.focus(); }
    var header = document.getElementById("site-search-q");
    if (header) { header.value = query; }
    render(query, select ? select.value : "");
  }

  /* Header search on any page: load the index on first use, then answer as you type. */
  function loadIndex(root, done) {
    if (window.flowspecSearchIndex || loadIndex.loading) { if (window.flowspecSearchIndex) { done(); } return; }
    loadIndex.loading = true;
    var add = function (src, onload) {
      var script = document.createElement("script");
      script.src = root + src;
      script.onload = onload;
      document.head.appendChild(script);
    };
    add("assets/search/shards.js", function () {
      var shards = window.flowspecSearchShards || [];
      var left = shards.length;
      if (left === 0) { window.flowspecSearchIndex = []; done(); return; }
      shards.forEach(function (shard) { add(shard, function () { left -= 1; if (left === 0) { prepared = null; done(); } }); });
    });
  }

  function startHeader(input) {
    var form = input.form;
    var box = document.getElementById("site-search-results");
    if (!form || !box) { return; }
    var root = form.getAttribute("data-root") || "";
    var show = function () {
      while (box.firstChild) { box.removeChild(box.firstChild); }
      var words = terms(input.value);
      if (words.length === 0) { box.classList.remove("is-open"); return; }
      var results = search(input.value).slice(0, 8);
      var status = document.createElement("p");
      status.className = "search-status";
      status.textContent = countText(box, results.length);
      box.appendChild(status);
      var list = document.createElement("ol");
      results.forEach(function (result) {
        var item = resultItem(result.entry, words, root);
        if (result.entry.context) {
          var context = document.createElement("span");
          context.className = "result-context";
          context.textContent = result.entry.context;
          item.insertBefore(context, item.children[1] || null);
        }
        list.appendChild(item);
      });
      box.appendChild(list);
      box.classList.add("is-open");
    };
    var timer = null;
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { loadIndex(root, show); }, 120);
    });
    input.addEventListener("keydown", function (event) { if (event.key === "Escape") { box.classList.remove("is-open"); } });
    document.addEventListener("click", function (event) { if (!form.contains(event.target)) { box.classList.remove("is-open"); } });
  }

  function start() {
    var page = document.getElementById("search-q");
    if (page) { startSearchPage(page); return; }
    var header = document.getElementById("site-search-q");
    if (header) { startHeader(header); }
  }

  /* Deferred scripts run before DOMContentLoaded, the index shards after this one: wait for it. */
  if (document.readyState === "complete") { start(); } else { document.addEventListener("DOMContentLoaded", start); }
})();
