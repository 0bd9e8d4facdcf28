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
})();
