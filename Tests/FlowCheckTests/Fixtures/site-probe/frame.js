/* Test probe for SiteResultsBrowserTests: headless Chromium windows are at least 500 px wide, so
   a phone width is an iframe of that width; this writes what the framed page's probe reports. */
window.addEventListener("message", function (event) {
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = String(event.data);
  document.body.appendChild(pre);
});
