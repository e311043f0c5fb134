// memoryadmin console: the few behaviours htmx attributes do not cover.
// Everything here is optional: every page reads and every action posts without it.
(function () {
  "use strict";

  function flash(text, kind) {
    var area = document.getElementById("flash");
    if (!area) return;
    var p = document.createElement("p");
    p.className = "flash " + (kind || "error");
    p.setAttribute("role", "alert");
    p.textContent = text;
    area.appendChild(p);
    setTimeout(function () { p.remove(); }, 8000);
  }

  // An action refused by the server (403, 404, 500...) is said in words, not swallowed.
  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr;
    var type = xhr.getResponseHeader("Content-Type") || "";
    var text = type.indexOf("text/plain") === 0 && xhr.responseText ? xhr.responseText : "";
    if (xhr.status === 401) text = text || "Your session has ended; sign in again.";
    flash(text || "The server answered " + xhr.status + " " + (xhr.statusText || "") + ".", "error");
  });
  document.addEventListener("htmx:sendError", function () {
    flash("The server could not be reached; check your connection.", "error");
  });

  // Bulk selection: "all shown" and the running count.
  function picks() { return document.querySelectorAll('input[name="ids"][form="bulk-form"]'); }
  function countPicked() {
    var label = document.getElementById("picked-count");
    if (!label) return;
    var n = 0;
    picks().forEach(function (box) { if (box.checked) n += 1; });
    label.textContent = n + " selected";
  }
  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target.id === "pick-all") {
      picks().forEach(function (box) { box.checked = target.checked; });
    }
    if (target.id === "pick-all" || (target.name === "ids" && target.getAttribute("form") === "bulk-form")) {
      countPicked();
    }
  });
  document.addEventListener("htmx:afterSettle", countPicked);
  // The bulk bar asks what it is about to do, to how many ("Forget 3 memories?"), and asks nothing
  // when nothing is picked: it says so instead.
  document.addEventListener("htmx:confirm", function (event) {
    var form = event.detail.elt;
    if (!form || form.id !== "bulk-form") return;
    var n = 0;
    picks().forEach(function (box) { if (box.checked) n += 1; });
    if (n === 0) {
      event.preventDefault();
      flash("Select at least one memory first.", "error");
      return;
    }
    var action = form.querySelector('select[name="action"]');
    var verb = action ? action.options[action.selectedIndex].text : "Apply to";
    event.preventDefault();
    if (window.confirm(verb + " " + n + (n === 1 ? " selected memory?" : " selected memories?"))) {
      event.detail.issueRequest(true);
    }
  });

  // Working memory: the TTL counts down in place.
  function tick() {
    document.querySelectorAll("[data-ttl]").forEach(function (el) {
      var left = parseInt(el.getAttribute("data-ttl"), 10) - 1;
      if (isNaN(left)) return;
      if (left <= 0) {
        el.textContent = "expired";
        el.removeAttribute("data-ttl");
        return;
      }
      el.setAttribute("data-ttl", String(left));
      var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
      el.textContent = (h ? h + " h " : "") + (h || m ? m + " min " : "") + s + " s";
    });
  }
  setInterval(tick, 1000);

  // Review queue: j/k move between candidates, a/e/r act on the focused one.
  function cards() { return Array.prototype.slice.call(document.querySelectorAll("[data-review-card]")); }
  function focused() { return document.querySelector("[data-review-card].is-focused"); }
  function focusCard(card) {
    var current = focused();
    if (current) current.classList.remove("is-focused");
    if (!card) return;
    card.classList.add("is-focused");
    lastIndex = cards().indexOf(card);
    card.focus({ preventScroll: true });
    card.scrollIntoView({ block: "nearest" });
  }
  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    var list = cards();
    if (!list.length) return;
    var current = focused();
    var index = current ? list.indexOf(current) : -1;
    var key = event.key.toLowerCase();
    if (key === "j" || key === "k") {
      var next = key === "j" ? Math.min(index + 1, list.length - 1) : Math.max(index - 1, 0);
      focusCard(list[next]);
      event.preventDefault();
      return;
    }
    if (!current || "aer".indexOf(key) === -1 || key === "") return;
    // A key names a button to press, or a field to write in first (the reason of a rejection).
    var control = current.querySelector('[data-key="' + key + '"]');
    if (control) {
      event.preventDefault();
      if (control.tagName === "INPUT") control.focus();
      else control.click();
    }
  });
  // "Edit and approve" opens its form in the card: the cursor goes to the text.
  document.addEventListener("htmx:afterSettle", function (event) {
    var slot = event.detail && event.detail.target;
    if (!slot || !slot.classList || !slot.classList.contains("review-slot")) return;
    var text = slot.querySelector("textarea");
    if (text) text.focus();
  });
  // After a card is answered it stops being a candidate card; the next one takes the focus.
  var lastIndex = -1;
  document.addEventListener("htmx:afterSettle", function () {
    if (lastIndex < 0 || focused()) return;
    var list = cards();
    if (list.length) focusCard(list[Math.min(lastIndex, list.length - 1)]);
  });
  document.addEventListener("click", function (event) {
    var card = event.target.closest && event.target.closest("[data-review-card]");
    if (card && !card.classList.contains("is-focused")) focusCard(card);
  });
})();
