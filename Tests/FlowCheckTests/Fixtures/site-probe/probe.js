/* Test probe for SiteResultsBrowserTests: measures what a reader sees (computed colours, the
   counts' text, each step's verdict and last paragraph) and writes it into the page as
   percent-encoded JSON, which `chromium --dump-dom` prints. Written into a copy of a built
   page by the test; never part of the site. */
(function () {
  "use strict";
  function rgba(text) {
    var m = /rgba?\(([^)]*)\)/.exec(text || "");
    if (!m) { return null; }
    var p = m[1].split(/[\s,\/]+/).filter(Boolean).map(parseFloat);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  }
  function over(top, bottom) {
    var a = top.a;
    return { r: top.r * a + bottom.r * (1 - a), g: top.g * a + bottom.g * (1 - a), b: top.b * a + bottom.b * (1 - a), a: 1 };
  }
  function channel(v) { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }
  function luminance(c) { return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b); }
  var dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
  /* The colour behind an element: its own and its ancestors' backgrounds, composited. */
  function background(element) {
    var layers = [];
    for (var e = element; e; e = e.parentElement) {
      var c = rgba(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) { break; } }
    }
    var base = layers.length && layers[layers.length - 1].a >= 1 ? layers.pop() : (dark ? { r: 0, g: 0, b: 0, a: 1 } : { r: 255, g: 255, b: 255, a: 1 });
    while (layers.length) { base = over(layers.pop(), base); }
    return base;
  }
  function contrast(element) {
    var bg = background(element);
    var fg = rgba(getComputedStyle(element).color);
    if (fg.a < 1) { fg = over(fg, bg); }
    var a = luminance(fg), b = luminance(bg);
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }
  var out = { dark: dark, width: window.innerWidth, prose: [], counts: {}, steps: [] };
  document.querySelectorAll("section.step").forEach(function (step) {
    var paragraphs = step.querySelectorAll(":scope > .prose p, :scope > .prose li");
    paragraphs.forEach(function (p) {
      out.prose.push({ step: step.id, verdict: step.getAttribute("data-verdict") || "", ratio: contrast(p) });
    });
    var prose = step.querySelector(":scope > .prose");
    var line = step.querySelector(":scope > .verdict-line");
    out.steps.push({
      id: step.id, verdict: step.getAttribute("data-verdict") || "",
      length: prose ? prose.textContent.length : 0,
      last: paragraphs.length ? paragraphs[paragraphs.length - 1].textContent : "",
      line: line ? line.textContent : ""
    });
  });
  var counts = document.querySelector(".results-counts");
  if (counts) {
    counts.querySelectorAll("[data-count]").forEach(function (e) {
      out.counts[e.getAttribute("data-count")] = parseInt(e.textContent, 10);
    });
  }
  var encoded = encodeURIComponent(JSON.stringify(out));
  /* In the phone frame (frame.html) the page reports to the frame's page, which --dump-dom prints. */
  if (window.parent !== window) { window.parent.postMessage(encoded, "*"); return; }
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = encoded;
  document.body.appendChild(pre);
})();
