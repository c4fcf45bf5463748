// citeview: the check panel (templates/review/check.html). Every page works without this file.

// The check panel's keys: j / k next / previous item, 1–6 the verdict, Enter save. Typing in a text
// box is never taken over, and a modifier key leaves the browser's own shortcuts alone.
// (The page can be rewritten in place after an upload, running this file again: no top-level let.)
document.addEventListener("change", (event) => {
  const form = event.target.closest && event.target.closest("#cv-check-form");
  if (form) form.dataset.changed = "true";
});
document.addEventListener("keydown", (event) => {
  const form = document.getElementById("cv-check-form");
  const steps = document.querySelector(".cv-item-steps");
  if (!steps || event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
  const target = event.target;
  if (target.matches && target.matches("textarea, input[type=text], input[type=date], select")) return;
  if (event.key === "j" || event.key === "k") {
    const link = steps.querySelector(event.key === "j" ? "a[rel=next]" : "a[rel=prev]");
    if (!link) return;
    event.preventDefault();
    // Leaving would drop what was chosen: ask first.
    if (form && form.dataset.changed && !window.confirm(form.dataset.leaveUnsaved || "")) return;
    window.location.assign(link.href);
    return;
  }
  if (!form) return;
  if (event.key >= "1" && event.key <= "6" && event.key.length === 1) {
    const choice = form.querySelectorAll("input[name=verdict]")[Number(event.key) - 1];
    if (choice) {
      event.preventDefault();
      choice.checked = true;
      choice.focus();
      form.dataset.changed = "true";
    }
  } else if (event.key === "Enter" && !(target.matches && target.matches("button, a, summary"))) {
    event.preventDefault();
    form.requestSubmit();
  }
});

// The check panel's citation is marked in the answer beside it, and scrolled into view there.
document.addEventListener("DOMContentLoaded", () => {
  const panel = document.querySelector(".cv-check-panel[data-anchor]");
  // A span citation of several sources marks each: its first one carries the "-1" suffix.
  const mark = panel && (document.getElementById(panel.dataset.anchor) || document.getElementById(`${panel.dataset.anchor}-1`));
  if (!mark) return;
  const footnote = mark.closest("sup") || mark;
  footnote.classList.add("cv-current-cite");
  const answer = footnote.closest(".cv-check-answer");
  if (answer) answer.scrollTop = Math.max(0, footnote.offsetTop - answer.offsetTop - answer.clientHeight / 3);
});
