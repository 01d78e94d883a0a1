// Live pages: the change stream (Server-Sent Events) says which object changed and its version;
// the page fetches its own new snapshot only when that version is higher than the one shown.
// A reconnect resumes from the last revision seen (the browser sends Last-Event-ID). The only
// timer is a 60 s safety net. Times get the viewer's local time on hover. A detail page also
// refreshes on any change of its related kinds (a subnet's page on its instances' changes); a
// select marked data-submit-on-change submits its (GET) form when changed. A new snapshot is not
// swapped in while a pointer is pressed (the click would be lost: it fires only where the press
// and the release landed on one element) but once it is released, and never once a form was
// submitted (the page is leaving).
(function () {
  "use strict";
  var SAFETY_NET_MS = 60000;
  var body = document.body;

  function localTimes(root) {
    root.querySelectorAll("time[datetime]").forEach(function (el) {
      var moment = new Date(el.getAttribute("datetime"));
      if (!isNaN(moment.getTime())) {
        el.title = moment.toLocaleString();
      }
    });
  }

  function shownVersion(id) {
    var found = null;
    document.querySelectorAll("[data-object-id]").forEach(function (el) {
      if (el.getAttribute("data-object-id") === id && el !== body) {
        found = parseInt(el.getAttribute("data-version") || "0", 10);
      }
    });
    return found;
  }

  var timer = null;
  var busy = false;
  var again = false;
  // The page's content as last fetched: a refresh that brings the same is not swapped in, so a
  // click is not lost to a swap between its press and its release, nor a selection or focus.
  var shown = null;

  // A swap that waits for the pointer's release (data-swap-waiting on the body meanwhile).
  var pressed = false;
  var waiting = null;
  var leaving = false;

  function swap(next, version) {
    if (leaving) { return; }
    if (pressed) {
      waiting = function () { swap(next, version); };
      body.setAttribute("data-swap-waiting", "");
      return;
    }
    var current = document.getElementById("content");
    var html = next.outerHTML;
    if (current && html !== shown) {
      shown = html;
      current.replaceWith(next);
      localTimes(next);
    }
    body.setAttribute("data-shown-version", version);
  }

  function released() {
    pressed = false;
    // After the click this release makes (dispatched right after it), not before.
    window.setTimeout(function () {
      if (pressed || waiting === null) { return; }  // pressed again: its release swaps
      var run = waiting;
      waiting = null;
      body.removeAttribute("data-swap-waiting");
      run();
    }, 0);
  }

  document.addEventListener("pointerdown", function () { pressed = true; }, true);
  document.addEventListener("pointerup", released, true);
  document.addEventListener("pointercancel", released, true);
  document.addEventListener("submit", function (event) { if (!event.defaultPrevented) { leaving = true; } });

  function refresh() {
    timer = null;
    if (busy) { again = true; return; }
    busy = true;
    fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (text) {
        if (text === null) { return; }
        var fresh = new DOMParser().parseFromString(text, "text/html");
        var next = fresh.getElementById("content");
        if (next && document.getElementById("content")) {
          swap(next, fresh.body.getAttribute("data-shown-version") || "");
        }
      })
      .catch(function () { /* the safety net retries */ })
      .finally(function () {
        busy = false;
        if (again) { again = false; schedule(); }
      });
  }

  function schedule() {
    if (timer === null) { timer = window.setTimeout(refresh, 50); }
  }

  function subscribe(kinds, related) {
    var focus = body.getAttribute("data-object-id") || "";
    var source = new EventSource("/console/live?after=" + encodeURIComponent(body.getAttribute("data-revision") || "0"));
    source.addEventListener("change", function (message) {
      var change = JSON.parse(message.data);
      if (kinds.indexOf(change.kind) < 0) { return; }
      if (focus && change.id !== focus) {
        if (related.indexOf(change.kind) >= 0) { schedule(); }
        return;
      }
      var shown = focus ? parseInt(body.getAttribute("data-shown-version") || "0", 10) : shownVersion(change.id);
      if (change.type !== "deleted" && shown !== null && change.version <= shown) { return; }
      schedule();
    });
    source.addEventListener("reload", schedule);
  }

  function listOf(name) {
    return (body.getAttribute(name) || "").split(",").filter(Boolean);
  }

  localTimes(document);
  document.querySelectorAll("select[data-submit-on-change]").forEach(function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });
  var related = listOf("data-related-kinds");
  var kinds = listOf("data-live-kinds").concat(related);
  if (kinds.length) {
    if (window.EventSource) { subscribe(kinds, related); }
    window.setInterval(refresh, SAFETY_NET_MS);
  }
})();
