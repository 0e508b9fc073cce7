// Live progress of a running eval run: count its cases as they finish, reload when it ends.
(function () {
  "use strict";
  var progress = document.getElementById("progress");
  if (!progress || !window.EventSource) { return; }
  var events = new EventSource(progress.dataset.events);
  events.addEventListener("progress", function (event) {
    var data = JSON.parse(event.data);
    document.getElementById("cases-done").textContent = data.casesDone;
    document.getElementById("cases-total").textContent = data.cases;
  });
  events.addEventListener("end", function () {
    events.close();
    window.location.reload();
  });
})();

// The correct form's keys (the queue's and Correct this run's): j/k move between items,
// y/n mark the focused one Yes/No, r writes its reason, Enter saves, s skips the queue's
// run, ? lists the keys.
// Without this script the form is a plain form and works the same by mouse or Tab.
(function () {
  "use strict";
  var form = document.querySelector("form[data-keys=correct]");
  if (!form) { return; }
  var rows = Array.prototype.slice.call(form.querySelectorAll("tr.item-row"));
  var overlay = document.getElementById("keys");
  var hint = form.querySelector(".keys-hint");
  var at = 0;
  if (hint) { hint.hidden = false; }

  function focusRow(index) {
    if (!rows.length) { return; }
    at = Math.max(0, Math.min(rows.length - 1, index));
    rows.forEach(function (row, i) { row.classList.toggle("focused", i === at); });
    rows[at].focus();
  }
  rows.forEach(function (row, i) {
    row.tabIndex = -1;
    row.addEventListener("focusin", function () {
      at = i;
      rows.forEach(function (other, j) { other.classList.toggle("focused", j === i); });
    });
  });

  function mark(verdict) {
    var radio = rows.length && rows[at].querySelector("input[type=radio][value=" + verdict + "]");
    if (radio) { radio.checked = true; }
  }

  function showKeys(shown) {
    if (!overlay) { return; }
    overlay.hidden = !shown;
    if (shown) { document.getElementById("keys-close").focus(); } else { focusRow(at); }
  }
  var close = document.getElementById("keys-close");
  if (close) { close.addEventListener("click", function () { showKeys(false); }); }

  function typing(target) {
    var tag = target.tagName;
    return tag === "TEXTAREA" || tag === "SELECT" ||
      (tag === "INPUT" && ["radio", "checkbox", "submit", "button"].indexOf(target.type) < 0);
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var target = event.target;
    if (overlay && !overlay.hidden) {
      if (event.key === "Escape" || event.key === "?") { event.preventDefault(); showKeys(false); }
      if (event.key === "Tab") { event.preventDefault(); close.focus(); }  // its one control
      return;
    }
    if (typing(target)) {
      if (event.key === "Escape") { event.preventDefault(); focusRow(at); }
      return;  // Enter in a field submits the form as any form does
    }
    var act = {
      j: function () { focusRow(at + 1); },
      k: function () { focusRow(at - 1); },
      y: function () { mark("right"); },
      n: function () { mark("wrong"); },
      r: function () {
        var reason = rows.length && rows[at].querySelector("input[name^=reason-]");
        if (reason) { reason.focus(); }
      },
      s: function () {
        var skip = document.getElementById("skip");
        if (skip) { window.location.href = skip.href; }
      },
      "?": function () { showKeys(true); },
      Enter: function () { form.requestSubmit(); }
    }[event.key];
    if (!act || (event.key === "Enter" && /^(A|BUTTON)$/.test(target.tagName))) { return; }
    event.preventDefault();
    act();
  });
  if (rows.length && form.closest("main") && document.activeElement === document.body) {
    focusRow(0);
  }
})();
