// /docs: renders the OpenAPI document with Redoc (served by the app; no CDN).
// System fonts only: the page loads nothing from another origin.
(function () {
  "use strict";
  var container = document.getElementById("redoc");
  var fonts = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
  window.Redoc.init(
    container.getAttribute("data-spec-url"),
    {
      expandResponses: "200",
      hideDownloadButton: false,
      jsonSampleExpandLevel: 3,
      theme: {
        typography: {
          fontFamily: fonts,
          headings: { fontFamily: fonts },
          code: { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" },
        },
      },
    },
    container
  );

  // Issue 40.5: what Redoc renders, mended for assistive technology (axe-core clean;
  // tests/browser/test_axe.py), each time Redoc renders more (it renders lazily):
  // - a link inside a response's toggle button (its "Problem: <kind>" line) becomes
  //   text: a control inside a control is unreachable (the Errors table links each kind);
  // - Redoc's h5 sub-headings ("Authorizations", "query Parameters", "Response Schema")
  //   get the level one below the heading before them (aria-level), not a jump from h2;
  // - a scrolling code block or table gets a tab stop, so the keyboard can scroll it.
  var mend = function () {
    container.querySelectorAll("button a[href]").forEach(function (link) {
      var text = document.createElement("span");
      text.textContent = link.textContent;
      link.replaceWith(text);
    });
    var level = 1;
    container.querySelectorAll("h1, h2, h3, h4, h5, h6").forEach(function (heading) {
      var own = Number(heading.tagName.charAt(1));
      if (heading.tagName === "H5") {
        var wanted = Math.min(level + 1, 6);
        heading.setAttribute("aria-level", String(wanted));
        own = wanted;
      }
      level = own;
    });
    container.querySelectorAll("pre, .redoc-markdown table").forEach(function (box) {
      if (!box.hasAttribute("tabindex") && box.scrollWidth > box.clientWidth) {
        box.setAttribute("tabindex", "0");
      }
    });
  };
  var pending = false;
  new MutationObserver(function () {
    if (pending) { return; }
    pending = true;
    window.requestAnimationFrame(function () { pending = false; mend(); });
  }).observe(container, { childList: true, subtree: true });
})();
