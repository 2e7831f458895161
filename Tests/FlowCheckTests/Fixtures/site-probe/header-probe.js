/* Test probe for SiteResultsBrowserTests: types the query from the page's #q= fragment into the
   header search field (an input event, as typing makes) and reports what the field answers. */
window.addEventListener("load", function () {
  "use strict";
  var query = decodeURIComponent(window.location.hash.slice(3));
  var input = document.getElementById("site-search-q");
  input.value = query;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  setTimeout(function () {
    var box = document.getElementById("site-search-results");
    var links = Array.prototype.map.call(box.querySelectorAll("a"), function (a) { return a.getAttribute("href"); });
    var pre = document.createElement("pre");
    pre.id = "probe";
    pre.textContent = encodeURIComponent(JSON.stringify({ hidden: !box.classList.contains("is-open"), links: links, status: (box.querySelector(".search-status") || {}).textContent || "" }));
    document.body.appendChild(pre);
  }, 2000);
});
