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
