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
// Coming back with the browser's Back button restores the page from cache: make its buttons usable again.
window.addEventListener("pageshow", () => {
  document.querySelectorAll("form.work button[type=submit]").forEach((button) => {
    button.disabled = false;
    if (button.dataset.label) button.textContent = button.dataset.label;
  });
});
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
    });
  });
});
