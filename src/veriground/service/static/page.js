// Opens a claim's signals and evidence when a link to it (trace, inspector) is followed, and shows a running job's
// progress (an indicator with the elapsed seconds) while the server works. The page works without it.
"use strict";

function openClaim(hash) {
  if (!hash || !hash.startsWith("#claim-")) return;
  const section = document.getElementById(decodeURIComponent(hash.slice(1)));
  if (!section) return;
  section.querySelectorAll("details").forEach((details) => { details.open = true; });
  const summary = section.querySelector("details.signals > summary");
  if (summary) summary.focus({ preventScroll: true });
}

// The status line under a submitted form: what the server is doing, a progress bar and the seconds since submit.
function showProgress(form) {
  let status = form.parentElement.querySelector(".progress");
  if (!status) {
    status = document.createElement("div");
    status.className = "progress";
    status.setAttribute("role", "status");
    const bar = document.createElement("progress");
    bar.setAttribute("aria-label", "Working");
    const text = document.createElement("span");
    text.className = "progress-text";
    const elapsed = document.createElement("span");
    elapsed.className = "elapsed";
    elapsed.setAttribute("aria-hidden", "true");  // announced once, not every second
    status.append(bar, text, elapsed);
    form.after(status);
  }
  status.hidden = false;
  status.querySelector(".progress-text").textContent = (form.dataset.busy || "Working") + "…";
  const elapsed = status.querySelector(".elapsed");
  const started = Date.now();
  const tick = () => { elapsed.textContent = `${Math.floor((Date.now() - started) / 1000)} s elapsed`; };
  tick();
  window.clearInterval(Number(status.dataset.timer || 0));
  status.dataset.timer = String(window.setInterval(tick, 1000));
}

function resetForms() {
  document.querySelectorAll("form.work button[type=submit]").forEach((button) => {
    button.disabled = false;
    if (button.dataset.label) button.textContent = button.dataset.label;
  });
  document.querySelectorAll(".progress").forEach((status) => {
    window.clearInterval(Number(status.dataset.timer || 0));
    status.hidden = true;
  });
}

document.addEventListener("click", (event) => {
  const link = event.target.closest('a[href^="#claim-"]');
  if (link) openClaim(link.getAttribute("href"));
});
window.addEventListener("hashchange", () => openClaim(window.location.hash));
// Coming back with the browser's Back button restores the page from cache: make its buttons usable again.
window.addEventListener("pageshow", resetForms);
document.addEventListener("DOMContentLoaded", () => {
  openClaim(window.location.hash);
  document.querySelectorAll("form.work").forEach((form) => {
    form.addEventListener("submit", () => {
      const button = form.querySelector("button[type=submit]");
      if (button) {
        button.dataset.label = button.textContent;
        button.disabled = true;
        button.textContent = "Working…";
      }
      showProgress(form);
    });
  });
});
