// Work a worker does for a page (reading a large dump, an import): the page asks how it stands every
// second or so and shows it, without a reload. Without JavaScript the page's own link reloads it.
"use strict";

const POLL_MS = 1000;

async function askJSON(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.json();
}

// The viewer of a dump still being read: once it is read (or has failed), the page is loaded again
// and the server shows the viewer or the error.
function followReading(panel) {
  const label = panel.querySelector(".cv-reading-label");
  const poll = async () => {
    try {
      const status = await askJSON(panel.dataset.statusUrl);
      if (status.state !== panel.dataset.state && (status.state === "ready" || status.state === "failed")) {
        window.location.replace(panel.dataset.readyUrl);
        return;
      }
      if (label && status.state !== panel.dataset.state) label.textContent = status.label;
      panel.dataset.state = status.state;
    } catch (error) {
      // A moment without the server (a restart) is no reason to stop asking.
    }
    window.setTimeout(poll, POLL_MS);
  };
  window.setTimeout(poll, POLL_MS);
}

// An import: the rows stored since the last answer are added as the server wrote them (its own
// template, everything in it escaped), then the summary once every piece is done.
function followImport(panel) {
  const rows = panel.querySelector(".cv-import-rows");
  const summary = panel.querySelector(".cv-import-summary-place");
  const poll = async () => {
    try {
      const status = await askJSON(`${panel.dataset.statusUrl}?after=${rows.children.length}`);
      rows.insertAdjacentHTML("beforeend", status.rows_html);
      if (status.done) {
        summary.innerHTML = status.summary_html;
        panel.querySelectorAll(".cv-import-waiting").forEach((node) => node.remove());
        return;
      }
    } catch (error) {
      // As above: keep asking.
    }
    window.setTimeout(poll, POLL_MS);
  };
  window.setTimeout(poll, POLL_MS);
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".cv-reading[data-status-url]").forEach((panel) => {
    if (panel.dataset.state === "queued" || panel.dataset.state === "reading") followReading(panel);
  });
  document.querySelectorAll(".cv-import-progress[data-status-url]").forEach((panel) => {
    if (panel.dataset.done !== "true") followImport(panel);
  });
});
