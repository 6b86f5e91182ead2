// Opens a claim's signals and evidence when a link to it (trace, inspector) is followed, and marks a form busy
// while the server works. The page works without it; it only saves clicks.
"use strict";

function openClaim(hash) {
  if (!hash || !hash.startsWith("#claim-")) return;
  const section = document.getElementById(decodeURIComponent(hash.slice(1)));
  if (!section) return;
  section.querySelectorAll("details").forEach((details) => { details.open = true; });
  const summary = section.querySelector("details.signals > summary");
  if (summary) summary.focus({ preventScroll: true });
}

document.addEventListener("click", (event) => {
  const link = event.target.closest('a[href^="#claim-"]');
  if (link) openClaim(link.getAttribute("href"));
});
window.addEventListener("hashchange", () => openClaim(window.location.hash));
document.addEventListener("DOMContentLoaded", () => {
  openClaim(window.location.hash);
  document.querySelectorAll("form.work").forEach((form) => {
    form.addEventListener("submit", () => {
      const button = form.querySelector("button[type=submit]");
      if (button) { button.disabled = true; button.textContent = "Working…"; }
    });
  });
});
