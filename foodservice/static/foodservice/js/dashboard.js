// foodservice dashboard: the only script. No inline scripts (the Content-Security-Policy
// forbids them). Progressive enhancement: every page works without it.
"use strict";

// Copy buttons: <button data-copy="ID"> copies the value of the element with that id.
// The button stays hidden until the clipboard is available, so no dead button is shown.
function setUpCopyButtons() {
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var target = document.getElementById(button.dataset.copy);
    if (!target) return;
    button.hidden = false;
    var status = document.getElementById(button.dataset.copyStatus || "");
    button.addEventListener("click", function () {
      var text = target.value || target.textContent;
      var done = function (message) {
        button.textContent = message;
        if (status) status.textContent = message === "Copied" ? (button.dataset.copyMessage || "Secret copied to the clipboard.") : message;
        window.setTimeout(function () { button.textContent = "Copy"; }, 2000);
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { done("Copied"); },
          function () { selectAll(target); done("Press Ctrl+C"); });
      } else {
        selectAll(target);
        done(document.execCommand && document.execCommand("copy") ? "Copied" : "Press Ctrl+C");
      }
    });
  });
}

function selectAll(element) {
  if (element.select) { element.focus(); element.select(); }
}

// Selecting the secret field selects all of it, so a manual copy never misses a character.
function setUpSelectOnFocus() {
  document.querySelectorAll("[data-select-on-focus]").forEach(function (input) {
    input.addEventListener("focus", function () { input.select(); });
  });
}

// Chart bars (issue 29.5): pointing at a bar or focusing it writes its numbers under
// the chart (a polite live region); the arrow keys, Home and End move between bars,
// which share one tab stop (the latest bar).
function setUpChartValues() {
  document.querySelectorAll("[data-chart-value]").forEach(function (box) {
    var out = document.getElementById(box.dataset.chartValue);
    var bars = Array.prototype.slice.call(box.querySelectorAll(".stack"));
    if (!out || !bars.length) return;
    var show = function (bar) { out.textContent = bar.getAttribute("aria-label"); };
    bars.forEach(function (bar, i) {
      bar.addEventListener("mouseenter", function () { show(bar); });
      bar.addEventListener("focus", function () { show(bar); });
      bar.addEventListener("keydown", function (event) {
        var next = { ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: bars.length - 1 }[event.key];
        if (next === undefined || next < 0 || next >= bars.length) return;
        event.preventDefault();
        bar.setAttribute("tabindex", "-1");
        bars[next].setAttribute("tabindex", "0");
        bars[next].focus();
      });
    });
  });
}

// The expiry date (issue 40.8) shows, and takes a tab stop, only when "On a date" is
// chosen; without the script it stays visible (and is ignored unless "On a date").
// Issue 40.4: on a phone the chart's drawing (720 x 220 units) would shrink to about
// 300 x 92 px. Below 640 px it is stretched to a readable height instead
// (preserveAspectRatio none, the height from the stylesheet's .chart--tall) and every
// text is scaled back by the inverse factors about its anchor, so labels keep their
// stylesheet size and shape (the y-axis labels moved to the left edge); lines keep
// 1 px (vector-effect in the stylesheet). Without scripts the chart keeps its shape.
function setUpTallCharts() {
  var charts = Array.prototype.slice.call(document.querySelectorAll("svg.chart[viewBox]"));
  if (!charts.length) { return; }
  var fit = function () {
    charts.forEach(function (svg) {
      var box = svg.viewBox.baseVal;
      var tall = window.innerWidth <= 640;
      svg.classList.toggle("chart--tall", tall);
      svg.setAttribute("preserveAspectRatio", tall ? "none" : "xMidYMid meet");
      var rect = svg.getBoundingClientRect();
      var sx = rect.width / box.width, sy = rect.height / box.height;
      svg.querySelectorAll("text").forEach(function (text) {
        if (!tall || !sx || !sy) { text.removeAttribute("transform"); return; }
        var x = text.x.baseVal.length ? text.x.baseVal.getItem(0).value : 0;
        var y = text.y.baseVal.length ? text.y.baseVal.getItem(0).value : 0;
        // The y-axis labels move to the drawing's left edge (their left margin is only
        // ~25 px once stretched) and start there (.chart--tall .tick-y).
        var to = text.classList.contains("tick-y") ? 2 / sx : x;
        text.setAttribute("transform", "translate(" + to + " " + y + ") scale(" +
          (1 / sx) + " " + (1 / sy) + ") translate(" + (-x) + " " + (-y) + ")");
      });
    });
  };
  fit();
  window.addEventListener("resize", fit);
}

function setUpExpiryDate() {
  var choice = document.getElementById("id_expires");
  var date = document.getElementById("id_expires_on");
  if (!choice || !date) return;
  var field = date.closest(".field") || date;
  var sync = function () { field.hidden = choice.value !== "date"; };
  choice.addEventListener("change", sync);
  sync();
}

// Confirm pages (issue 40.8): focus starts on the page's question, and Escape cancels
// (the page's Cancel link, [data-cancel]).
function setUpConfirmPages() {
  var cancel = document.querySelector("a[data-cancel]");
  if (!cancel) return;
  var heading = document.querySelector("main h1");
  if (heading) { heading.setAttribute("tabindex", "-1"); heading.focus(); }
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && !event.defaultPrevented) { window.location.href = cancel.href; }
  });
}

document.addEventListener("DOMContentLoaded", function () {
  setUpTallCharts();
  setUpChartValues();
  setUpCopyButtons();
  setUpSelectOnFocus();
  setUpExpiryDate();
  setUpConfirmPages();
});
