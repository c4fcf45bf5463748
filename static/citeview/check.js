// citeview: the check panel (templates/review/check.html). Every page works without this file.
//
// Keys: 1–6 the verdict, y / n a claim or not, 7 / 8 / 9 supported together, Enter save, j / k next /
// previous item, m the next citation with no source, q the selection as the evidence quote, u undo
// the last save, ? every key (Escape closes the list). Typing in a text box is never taken over, and
// a modifier key leaves the browser's own shortcuts alone. The same keys are listed, with what they
// do, by citeview/review/views.py::_keys and shown on the form beside each answer.
// (The page can be rewritten in place after an upload, running this file again: no top-level let or
// const, which could not be declared twice.)

var CV_CHOICE_KEYS = {
  verdict: ["1", "2", "3", "4", "5", "6"],
  verification_worthy: ["y", "n"],
  supported_together: ["7", "8", "9"],
};

function cvCheckForm() {
  return document.getElementById("cv-check-form");
}

function cvChoose(form, name, index) {
  const choice = form.querySelectorAll(`input[name=${name}]`)[index];
  if (!choice) return false;
  choice.checked = true;
  choice.focus();
  form.dataset.changed = "true";
  return true;
}

// Leaving would drop what was chosen: ask first.
function cvLeave(href) {
  const form = cvCheckForm();
  if (form && form.dataset.changed && !window.confirm(form.dataset.leaveUnsaved || "")) return;
  window.location.assign(href);
}

// The text the editor selected in a quotable passage, or (nothing selected) the whole passage.
var cvLastSelection = "";
document.addEventListener("selectionchange", () => {
  const selection = document.getSelection();
  if (!selection || selection.isCollapsed || !selection.anchorNode) return;
  const start = selection.anchorNode.nodeType === 1 ? selection.anchorNode : selection.anchorNode.parentElement;
  if (start && start.closest(".cv-quotable")) cvLastSelection = selection.toString().trim();
});

function cvQuote() {
  const button = document.querySelector(".cv-use-selection");
  const field = button && document.getElementById(button.dataset.quoteInto);
  if (!field) return false;
  let text = cvLastSelection;
  if (!text) {
    const passage = document.querySelector(".cv-check-panel .cv-quotable");
    text = passage ? passage.textContent.trim() : "";
  }
  if (!text) return false;
  field.value = text;
  field.dispatchEvent(new Event("input", { bubbles: true }));
  const form = cvCheckForm();
  if (form) form.dataset.changed = "true";
  return true;
}

// The passage found in the source's snapshot, taken whole as the evidence quote (one click). It only
// fills the field: nothing is saved until the editor saves.
function cvUsePassage(button) {
  const passage = document.getElementById(button.dataset.quoteFrom);
  const field = document.getElementById(button.dataset.quoteInto);
  if (!passage || !field) return;
  field.value = passage.textContent.trim();
  field.dispatchEvent(new Event("input", { bubbles: true }));
  field.focus();
}

// A fetch of the source is running in a worker: ask how it stands, after a second at first and then
// twice as long each time (up to every 15 s), and show the result once it is in (by loading the page
// again, unless the editor has begun filling the form). An answer still pending after three minutes
// stops the asking: the panel says the fetch is taking longer than expected and offers the reload.
var CV_FETCH_FIRST_WAIT = 1000;
var CV_FETCH_LONGEST_WAIT = 15000;
var CV_FETCH_GIVE_UP_AFTER = 180000;

function cvFollowFetch(status) {
  const started = Date.now();
  let wait = CV_FETCH_FIRST_WAIT;
  const poll = async () => {
    try {
      const response = await fetch(status.dataset.statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      const answer = await response.json();
      if (!answer.pending) {
        const form = cvCheckForm();
        if (form && form.dataset.changed) {
          status.querySelector(".cv-fetch-reload").hidden = false;
          return;
        }
        window.location.reload();
        return;
      }
      const label = status.querySelector(".cv-fetch-state");
      if (label) label.textContent = answer.label;
    } catch (error) {
      // A moment without the server is no reason to stop asking.
    }
    if (Date.now() - started >= CV_FETCH_GIVE_UP_AFTER) {
      cvFetchTakingLong(status);
      return;
    }
    wait = Math.min(wait * 2, CV_FETCH_LONGEST_WAIT);
    window.setTimeout(poll, wait);
  };
  window.setTimeout(poll, wait);
}

// The asking has stopped: the panel's own sentence (in the template, translated) and the reload link.
function cvFetchTakingLong(status) {
  const late = status.querySelector(".cv-fetch-late");
  if (late) late.hidden = false;
  status.querySelector(".cv-fetch-reload").hidden = false;
}

// The list of keys, over the page: the focus goes to its Close button and comes back where it was.
var cvFocusBeforeKeys = null;
function cvOpenKeys() {
  const help = document.getElementById("cv-keys");
  if (!help || !help.hidden) return;
  cvFocusBeforeKeys = document.activeElement;
  help.hidden = false;
  help.querySelector(".cv-keys-close").focus();
}
function cvCloseKeys() {
  const help = document.getElementById("cv-keys");
  if (!help || help.hidden) return;
  help.hidden = true;
  if (cvFocusBeforeKeys && cvFocusBeforeKeys.focus) cvFocusBeforeKeys.focus();
}

document.addEventListener("change", (event) => {
  const form = event.target.closest && event.target.closest("#cv-check-form");
  if (form) form.dataset.changed = "true";
});
document.addEventListener("input", (event) => {
  const form = event.target.closest && event.target.closest("#cv-check-form");
  if (form) form.dataset.changed = "true";
});
// Saving or undoing is leaving on purpose: no question then.
document.addEventListener("submit", () => {
  const form = cvCheckForm();
  if (form) delete form.dataset.changed;
});

document.addEventListener("click", (event) => {
  const target = event.target.closest && event.target.closest("[data-opens], .cv-keys-close, .cv-use-selection, .cv-use-passage, .cv-fetch-reload, [data-choose-all]");
  if (!target) return;
  if (target.classList.contains("cv-use-passage")) cvUsePassage(target);
  else if (target.classList.contains("cv-fetch-reload")) {
    event.preventDefault();
    const form = cvCheckForm();
    if (form && form.dataset.changed && !window.confirm(form.dataset.leaveUnsaved || "")) return;
    window.location.reload();
  } else if (target.dataset.opens) cvOpenKeys();
  else if (target.classList.contains("cv-keys-close")) cvCloseKeys();
  else if (target.classList.contains("cv-use-selection")) cvQuote();
  else {
    const boxes = target.closest("form").querySelectorAll("input[type=checkbox][name=item_key]");
    const all = Array.from(boxes).every((box) => box.checked);
    boxes.forEach((box) => { box.checked = !all; });
  }
});

document.addEventListener("keydown", (event) => {
  const steps = document.querySelector(".cv-item-steps");
  if (!steps || event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
  const target = event.target;
  if (target.matches && target.matches("textarea, input[type=text], input[type=date], input[type=search], select")) return;
  if (target.closest && target.closest(".cv-settle-form")) return; // a settler's choice is never the check form's
  const help = document.getElementById("cv-keys");
  if (help && !help.hidden) {
    // The list has the keyboard: Escape (or ?) closes it, Tab stays on its button.
    if (event.key === "Escape" || event.key === "?" || event.key === "Tab") {
      event.preventDefault();
      if (event.key !== "Tab") cvCloseKeys();
    }
    return;
  }
  const form = cvCheckForm();
  const key = event.key;
  if (key === "?") {
    event.preventDefault();
    cvOpenKeys();
    return;
  }
  if (key === "j" || key === "k" || key === "m") {
    const selector = { j: "a[rel=next]", k: "a[rel=prev]", m: "a.cv-next-unresolved" }[key];
    const link = steps.querySelector(selector);
    if (!link) return;
    event.preventDefault();
    cvLeave(link.href);
    return;
  }
  if (key === "u") {
    const undo = document.querySelector(".cv-undo-form");
    if (!undo) return;
    event.preventDefault();
    if (form) delete form.dataset.changed;
    undo.requestSubmit();
    return;
  }
  if (!form) return;
  if (key === "q") {
    if (cvQuote()) event.preventDefault();
    return;
  }
  for (const [name, keys] of Object.entries(CV_CHOICE_KEYS)) {
    const index = keys.indexOf(key);
    if (index >= 0 && cvChoose(form, name, index)) {
      event.preventDefault();
      return;
    }
  }
  if (key === "Enter" && !(target.matches && target.matches("button, a, summary, input[type=checkbox]"))) {
    event.preventDefault();
    form.requestSubmit();
  }
});

// The item's mark (its footnote, or the marker that cites no source) is marked in the answer beside
// the panel and scrolled into view there. On a phone the answer is folded away under the form, and
// opened again when the window grows wide.
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".cv-keys-open, .cv-quote-actions, .cv-not-claims-all, .cv-use-passage").forEach((element) => {
    element.hidden = false;
  });
  const fetching = document.querySelector(".cv-snapshot-fetching[data-status-url]");
  if (fetching) {
    fetching.querySelector(".cv-fetch-reload").hidden = true;
    cvFollowFetch(fetching);
  }
  const fold = document.querySelector(".cv-answer-fold");
  if (fold && window.matchMedia) {
    const narrow = window.matchMedia("(max-width: 900px)");
    fold.open = !narrow.matches;
    narrow.addEventListener("change", () => { fold.open = !narrow.matches; });
  }
  const panel = document.querySelector(".cv-check-panel[data-anchor]");
  // A span citation of several sources marks each: its first one carries the "-1" suffix.
  const mark = panel && (document.getElementById(panel.dataset.anchor) || document.getElementById(`${panel.dataset.anchor}-1`));
  if (!mark) return;
  const footnote = mark.closest("sup") || mark;
  footnote.classList.add("cv-current-cite");
  const answer = footnote.closest(".cv-check-answer");
  if (answer && answer.offsetParent) {
    answer.scrollTop = Math.max(0, footnote.offsetTop - answer.offsetTop - answer.clientHeight / 3);
  }
});
