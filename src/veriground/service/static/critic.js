// "Critique a draft": selecting a highlighted span shows its finding's rationale next to the draft and marks the
// finding in the list. Without this script the span still links to the finding.
"use strict";

function showFinding(id) {
  const finding = document.getElementById(id);
  const detail = document.getElementById("critic-detail");
  if (!finding || !detail) return;
  document.querySelectorAll(".critic-finding.critic-open").forEach((item) => item.classList.remove("critic-open"));
  finding.classList.add("critic-open");
  detail.replaceChildren(...Array.from(finding.childNodes, (node) => node.cloneNode(true)));
  detail.dataset.finding = id;
  detail.hidden = false;
}

document.addEventListener("click", (event) => {
  const mark = event.target.closest("a.critic-mark");
  if (!mark) return;
  event.preventDefault();
  showFinding(mark.dataset.finding);
});
