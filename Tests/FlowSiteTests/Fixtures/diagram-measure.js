/* Test-only (DiagramBrowserTests): measures the diagrams of the page it is added to, from the
   DOM as laid out, and appends the figures as JSON in <pre id="flowspec-measure"> for
   `chromium --dump-dom` (or posts them to the page that frames it). Nothing is judged here; the
   Swift test does that. */
(function () {
  "use strict";
  function box(rect) { return { l: rect.left, t: rect.top, r: rect.right, b: rect.bottom }; }
  function visible(el) {
    if (!el) { return false; }
    var style = getComputedStyle(el);
    var rect = el.getBoundingClientRect();
    return style.display !== "none" && style.visibility !== "hidden" && rect.width > 0 && rect.height > 0;
  }
  // The nearest ancestor that scrolls sideways (overflow-x auto/scroll and wider content).
  function scroller(el) {
    for (var p = el.parentElement; p; p = p.parentElement) {
      var style = getComputedStyle(p);
      if ((style.overflowX === "auto" || style.overflowX === "scroll") && p.scrollWidth > p.clientWidth + 1) { return p; }
    }
    return null;
  }
  // The region's label: the text of the visible elements its aria-labelledby names.
  function visibleLabel(region) {
    var texts = [];
    (region.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean).forEach(function (id) {
      var el = document.getElementById(id);
      if (visible(el)) { texts.push(el.textContent.trim()); }
    });
    return texts.join(" ");
  }
  // Whether a box is wholly inside the viewport (horizontally) and inside every HTML ancestor
  // that clips its overflow.
  function shown(el, rect) {
    if (rect.left < 0 || rect.right > innerWidth) { return false; }
    for (var p = el.parentElement; p; p = p.parentElement) {
      if (p instanceof SVGElement) { continue; }
      if (getComputedStyle(p).overflowX !== "visible") {
        var outer = p.getBoundingClientRect();
        var left = outer.left + p.clientLeft, right = left + p.clientWidth;
        if (rect.left < left || rect.right > right) { return false; }
      }
    }
    return true;
  }
  function run() {
  var out = { viewport: { w: innerWidth, h: innerHeight }, docScrollWidth: document.documentElement.scrollWidth, svgs: [] };
  document.querySelectorAll("svg.diagram").forEach(function (svg) {
    var d = { cls: svg.getAttribute("class"), natural: parseFloat(svg.getAttribute("width")), box: box(svg.getBoundingClientRect()), texts: [], participants: [], failing: [] };
    svg.querySelectorAll("text").forEach(function (text) {
      var lines = text.querySelectorAll("tspan");
      (lines.length ? Array.prototype.slice.call(lines) : [text]).forEach(function (line) {
        if (!line.textContent.trim()) { return; }
        d.texts.push({ cls: text.getAttribute("class") || "", text: line.textContent, box: box(line.getBoundingClientRect()), size: parseFloat(getComputedStyle(text).fontSize) });
      });
    });
    svg.querySelectorAll(".participant rect").forEach(function (rect) {
      var r = rect.getBoundingClientRect();
      var entry = { name: rect.parentNode.textContent, box: box(r), shown: shown(rect, r) };
      var region = scroller(svg);
      if (region) {
        var rr = region.getBoundingClientRect();
        entry.region = { left: rr.left + region.clientLeft - region.scrollLeft, width: region.scrollWidth, label: visibleLabel(region) };
      }
      d.participants.push(entry);
    });
    svg.querySelectorAll(".msg-fail .msg-line").forEach(function (line) {
      var url = (line.getAttribute("marker-end") || "").replace(/^url\(#(.*)\)$/, "$1");
      var head = document.querySelector("#" + url + " path");
      d.failing.push({ line: getComputedStyle(line).stroke, head: head ? getComputedStyle(head).fill : "" });
    });
    out.svgs.push(d);
  });
  // Inside the test's frame (a 390 px viewport needs one: headless windows are at least 500 px
  // wide), the figures go to the page around it.
  if (window.parent !== window) {
    window.parent.postMessage(JSON.stringify(out), "*");
  } else {
    var pre = document.createElement("pre");
    pre.id = "flowspec-measure";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }
  }
  // After the stylesheet, fonts and layout are all in.
  window.addEventListener("load", function () { document.fonts.ready.then(run); });
})();
