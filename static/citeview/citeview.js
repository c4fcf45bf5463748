// citeview: small progressive enhancements. Every page works without this file.
"use strict";

// Hovering or focusing a footnote marks its source in the list and the span it follows.
function hintSource(event) {
  const link = event.target.closest && event.target.closest(".cv-cite-link");
  if (!link) return;
  const on = event.type === "mouseover" || event.type === "focusin";
  const entry = document.getElementById(link.getAttribute("href").slice(1));
  if (entry) entry.classList.toggle("cv-source-hinted", on);
  // The footnotes of a span follow it directly: step back over them to the span itself.
  let node = link.closest("sup");
  while (node && node.previousSibling && node.previousSibling.nodeType === 1 && node.previousSibling.matches("sup.cv-cite")) {
    node = node.previousSibling;
  }
  const span = node && node.previousSibling;
  if (span && span.nodeType === 1 && span.matches(".cv-supported")) span.classList.toggle("cv-supported-hinted", on);
}
["mouseover", "mouseout", "focusin", "focusout"].forEach((type) => document.addEventListener(type, hintSource));

document.addEventListener("DOMContentLoaded", () => {
  const form = document.querySelector(".cv-intake-form");
  if (!form) return;
  const maxBytes = Number(form.dataset.maxBytes || 0);
  const busy = form.querySelector(".cv-busy");
  const button = form.querySelector("button[type=submit]");

  form.addEventListener("submit", (event) => {
    const text = form.querySelector("textarea");
    const file = form.querySelector("input[type=file]");
    const size = file && file.files.length ? file.files[0].size : new Blob([text ? text.value : ""]).size;
    if (maxBytes && size > maxBytes) {
      // Refuse before sending: the paste stays in the box.
      event.preventDefault();
      busy.textContent = `${form.dataset.tooLarge} ${(maxBytes / 1048576).toFixed(1)} MiB (${size.toLocaleString()} bytes).`;
      return;
    }
    busy.textContent = form.dataset.busy;
    button.disabled = true;
  });
});
