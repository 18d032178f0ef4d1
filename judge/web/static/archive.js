// The public archive (judge/web): one phase at a time; ←/→ (Home/End, the buttons, a phase's link) step through them
// and the board swaps in place. Without scripts the page shows every phase one below the other.
(function () {
  "use strict";
  var phases = Array.prototype.slice.call(document.querySelectorAll("article.phase"));
  var bar = document.getElementById("step");
  if (!phases.length || !bar) return;
  var prev = document.getElementById("prev"), next = document.getElementById("next"), now = document.getElementById("now");
  var at = phases.length - 1;
  function find(id) {
    for (var k = 0; k < phases.length; k++) if (phases[k].id === id) return k;
    return -1;
  }
  function show(k, remember) {
    if (k < 0 || k >= phases.length) return;
    phases[at].classList.remove("on");
    at = k;
    var phase = phases[at];
    phase.classList.add("on");
    now.textContent = phase.querySelector("h2").textContent;
    prev.disabled = at === 0;
    next.disabled = at === phases.length - 1;
    var links = document.querySelectorAll(".phases a");
    for (var n = 0; n < links.length; n++) {
      if (links[n].getAttribute("href") === "#" + phase.id) links[n].setAttribute("aria-current", "step");
      else links[n].removeAttribute("aria-current");
    }
    var img = phase.querySelector("img");
    if (img) img.loading = "eager";
    if (remember && history.replaceState) history.replaceState(null, "", "#" + phase.id);
  }
  document.documentElement.classList.add("js");
  bar.hidden = false;
  var start = find(location.hash.slice(1));
  show(start < 0 ? at : start, false);
  prev.addEventListener("click", function () { show(at - 1, true); });
  next.addEventListener("click", function () { show(at + 1, true); });
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    var t = e.target && e.target.tagName;
    if (t === "INPUT" || t === "TEXTAREA" || t === "SELECT") return;
    if (e.key === "ArrowLeft") { show(at - 1, true); e.preventDefault(); }
    else if (e.key === "ArrowRight") { show(at + 1, true); e.preventDefault(); }
    else if (e.key === "Home") { show(0, true); e.preventDefault(); }
    else if (e.key === "End") { show(phases.length - 1, true); e.preventDefault(); }
  });
  window.addEventListener("hashchange", function () {
    var k = find(location.hash.slice(1));
    if (k >= 0 && k !== at) { show(k, false); bar.scrollIntoView({block: "nearest"}); }
  });
})();
