// citeview: the check panel (templates/review/check.html). Every page works without this file.
//
// Keys: 1–6 the verdict, y / n a claim or not, 7 / 8 / 9 supported together, Enter save, j / k next /
// previous item, m the next citation with no source, q the selection as the evidence quote, u undo
// the last save, ? every key (Escape closes the list); Ctrl+Enter (⌘+Enter) saves from the quote or
// the note. Typing in a text box is never taken over, and a modifier key leaves the browser's own
// shortcuts alone.
//
// Nothing typed is lost: the form keeps a draft in this browser (localStorage) as the editor works,
// gives it back when the item is opened again (and after a snapshot is taken, which reloads the
// page), and every way off the page with unsaved input asks first. The same keys are listed, with what they
// do, by citeview/review/check_page.py::_keys and shown on the form beside each answer.
// Only the check page loads this file, after citeview.js, which every page loads: the drafts' names and
// what clears them on any page (signing out, the page a save led to) are there.
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
  cvDraftKeep(form);
  return true;
}

// --- Drafts -------------------------------------------------------------------------------------
// One draft per user, dump and item, holding the item's version it was typed against, when, and the
// answers. A draft equal to what is saved is no draft: it is removed, and leaving asks nothing.
var CV_DRAFT_FIELDS = ["verdict", "subject", "time", "conditions", "verification_worthy", "supported_together", "evidence_quote", "note"];
var CV_DRAFT_KEPT_DAYS = 30;
var cvSaved = null; // the form's values as saved (null: the page shows input that is not saved)
var cvLeaving = false; // the page is being left on purpose (saving, a snapshot, a confirmed leave)

function cvDraftKey(form) {
  return CV_DRAFT_PREFIX + [form.dataset.draftUser, form.dataset.draftDump, form.dataset.draftItem].join(":");
}

function cvFormValues(form) {
  const values = {};
  for (const name of CV_DRAFT_FIELDS) {
    const field = form.elements.namedItem(name);
    if (field) values[name] = field.value || "";
  }
  return values;
}

function cvSetValues(form, values) {
  for (const name of CV_DRAFT_FIELDS) {
    const field = form.elements.namedItem(name);
    if (!field || !(name in values)) continue;
    if (field instanceof RadioNodeList) field.forEach((radio) => { radio.checked = radio.value === values[name]; });
    else field.value = values[name];
  }
}

function cvSameValues(a, b) {
  return CV_DRAFT_FIELDS.every((name) => (a[name] || "") === (b[name] || ""));
}

function cvDirty(form) {
  return Boolean(form) && (cvSaved === null || !cvSameValues(cvFormValues(form), cvSaved));
}

function cvVersion(form) {
  const field = form.elements.namedItem("version");
  return field ? field.value : "";
}

function cvDraftRead(form) {
  try {
    const draft = JSON.parse(window.localStorage.getItem(cvDraftKey(form)) || "null");
    return draft && draft.values ? draft : null;
  } catch (error) {
    return null; // storage off, or a draft written by something else: none
  }
}

function cvDraftForget(form) {
  try {
    window.localStorage.removeItem(cvDraftKey(form));
  } catch (error) {
    // Storage off: there was nothing kept.
  }
}

// Called on every change: the draft is always what the form holds, so that any way off the page
// (a snapshot's post, a crash, a closed tab) finds it kept.
function cvDraftKeep(form) {
  if (!form || !form.dataset.draftItem) return;
  if (!cvDirty(form)) {
    cvDraftForget(form);
    return;
  }
  const draft = { version: cvVersion(form), at: Date.now(), values: cvFormValues(form) };
  try {
    window.localStorage.setItem(cvDraftKey(form), JSON.stringify(draft));
  } catch (error) {
    // Storage full or off: the leave question still guards the input.
  }
}

function cvDraftTime(at) {
  const when = new Date(at);
  const lang = document.documentElement.lang || undefined;
  const today = new Date().toDateString() === when.toDateString();
  const options = today ? { hour: "2-digit", minute: "2-digit" } : { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" };
  return when.toLocaleString(lang, options);
}

// The line above the form that says a draft was given back (or is offered), with its buttons.
function cvDraftLine(form, draft, state) {
  const line = document.getElementById("cv-draft");
  if (!line) return;
  if (!state) {
    line.hidden = true;
    return;
  }
  line.querySelector(".cv-draft-text").textContent = (line.dataset[state] || "").replace("TIME", cvDraftTime(draft.at));
  line.querySelector(".cv-draft-restore").hidden = state !== "older";
  line.dataset.state = state;
  line.hidden = false;
}

function cvDraftRestore(form) {
  const draft = cvDraftRead(form);
  if (!draft) return;
  cvSetValues(form, draft.values);
  cvDraftKeep(form); // now against the version the form carries
  cvDraftLine(form, draft, "restored");
}

function cvDraftDiscard(form) {
  if (cvSaved) cvSetValues(form, cvSaved);
  cvDraftForget(form);
  cvDraftLine(form, null, null);
}

// On opening the page: a save that went through (the page moved on) takes its draft with it; a
// draft against this version of the item is put back in the form; one typed against an older version
// (someone saved since) is only offered.
function cvDraftSetUp(form) {
  cvForgetSavedDraft(cvDraftKey(form));
  cvForgetOldDrafts();
  if (form.dataset.draftUnsaved !== undefined) {
    // The server gave back input it did not save (a conflict, an error): that input is the draft.
    cvSaved = null;
    cvDraftKeep(form);
    return;
  }
  cvSaved = cvFormValues(form);
  const draft = cvDraftRead(form);
  if (!draft) return;
  if (cvSameValues(draft.values, cvSaved)) {
    cvDraftForget(form);
    return;
  }
  if (String(draft.version) === cvVersion(form)) {
    cvSetValues(form, draft.values);
    cvDraftLine(form, draft, "restored");
  } else cvDraftLine(form, draft, "older");
}

function cvForgetOldDrafts() {
  try {
    const oldest = Date.now() - CV_DRAFT_KEPT_DAYS * 86400000;
    for (let index = window.localStorage.length - 1; index >= 0; index -= 1) {
      const key = window.localStorage.key(index);
      if (!key || !key.startsWith(CV_DRAFT_PREFIX)) continue;
      const draft = JSON.parse(window.localStorage.getItem(key) || "null");
      if (!draft || !(draft.at > oldest)) window.localStorage.removeItem(key);
    }
  } catch (error) {
    // Storage off, or an entry that is not ours: left as it is.
  }
}

// --- Leaving --------------------------------------------------------------------------------------
// Leaving with unsaved input asks first, in the page's own dialog (the draft is kept either way);
// closing or reloading the tab gets the browser's question.
function cvAskToLeave(go) {
  const form = cvCheckForm();
  const leave = () => {
    cvLeaving = true;
    go();
  };
  if (!cvDirty(form)) {
    leave();
    return;
  }
  cvDraftKeep(form);
  const dialog = document.getElementById("cv-leave");
  if (!dialog || !dialog.showModal) {
    if (window.confirm(form.dataset.leaveUnsaved || "")) leave();
    return;
  }
  if (dialog.open) return;
  dialog.returnValue = "";
  cvLeaveGo = leave;
  dialog.showModal();
}

// What "Leave" does for the question now asked. A dialog's close event is queued, not sent at once:
// the close of an earlier answer ("Stay") can arrive after the question is asked again, so it is
// ignored while the dialog is open. (Close events do not bubble: this listens as they come down.)
var cvLeaveGo = null;
document.addEventListener("close", (event) => {
  const dialog = event.target;
  if (dialog.id !== "cv-leave" || dialog.open) return;
  const go = cvLeaveGo;
  cvLeaveGo = null;
  if (go && dialog.returnValue === "leave") go();
}, true);

function cvLeave(href) {
  cvAskToLeave(() => window.location.assign(href));
}

// A link that loads another page (not one opening a new tab, nor a place on this page).
function cvLeavesPage(link, event) {
  if (event.defaultPrevented || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return false;
  if ((link.target && link.target !== "_self") || link.hasAttribute("download")) return false;
  const url = new URL(link.href, window.location.href);
  const here = window.location;
  return !(url.origin === here.origin && url.pathname === here.pathname && url.search === here.search && url.hash);
}

// Forms that come back to this item, where the draft is put back: saving, a snapshot, a comment.
var CV_ROUND_TRIP_FORMS = "#cv-check-form, .cv-snapshot-take form, .cv-comment-form";

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

// A fetch of the source, or the reading of a page uploaded or pasted, is running in a worker (no web
// request parses a page): ask how it stands, after a second at first and then twice as long each
// time (up to every 15 s), and show the result once it is in (by loading the page again: a draft in
// the form is kept and put back). An answer still pending after three minutes stops the asking: the
// panel says it is taking longer than expected and offers the reload.
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
        // The draft is kept and put back after the reload: nothing typed is lost.
        cvDraftKeep(cvCheckForm());
        cvLeaving = true;
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

["change", "input"].forEach((type) =>
  document.addEventListener(type, (event) => {
    const form = event.target.closest && event.target.closest("#cv-check-form");
    if (form) cvDraftKeep(form);
  }),
);

// Saving, a snapshot or a comment come back to this item (or move on once saved): no question, and
// the draft is kept for the way back. Any other form (the language, undo, log out) asks first.
document.addEventListener("submit", (event) => {
  const sent = event.target;
  const form = cvCheckForm();
  if (event.defaultPrevented || sent.method === "dialog" || !form || cvLeaving) return;
  if (sent.matches(CV_ROUND_TRIP_FORMS)) {
    cvDraftKeep(form);
    if (sent === form) {
      try {
        window.sessionStorage.setItem(CV_DRAFT_SAVING, cvDraftKey(form));
      } catch (error) {
        // Storage off: no draft to forget either.
      }
    }
    cvLeaving = true;
    return;
  }
  if (!cvDirty(form)) return;
  event.preventDefault();
  const submitter = event.submitter;
  cvAskToLeave(() => sent.requestSubmit(submitter && submitter.form === sent ? submitter : undefined));
});

document.addEventListener("click", (event) => {
  const link = event.target.closest && event.target.closest("a[href]");
  if (!link || !cvDirty(cvCheckForm()) || !cvLeavesPage(link, event)) return;
  if (link.classList.contains("cv-fetch-reload")) return; // a reload: the draft comes back
  event.preventDefault();
  cvLeave(link.href);
});

window.addEventListener("beforeunload", (event) => {
  const form = cvCheckForm();
  if (cvLeaving || !cvDirty(form)) return;
  cvDraftKeep(form);
  event.preventDefault();
  event.returnValue = ""; // older browsers ask only when this is set
});

// Back to this page from the browser's cache: it is not being left any more.
window.addEventListener("pageshow", (event) => {
  if (event.persisted) cvLeaving = false;
});

document.addEventListener("click", (event) => {
  const target = event.target.closest && event.target.closest("[data-opens], .cv-keys-close, .cv-use-selection, .cv-use-passage, .cv-fetch-reload, .cv-draft-restore, .cv-draft-discard, [data-choose-all]");
  if (!target) return;
  if (target.classList.contains("cv-use-passage")) cvUsePassage(target);
  else if (target.classList.contains("cv-fetch-reload")) {
    event.preventDefault();
    cvDraftKeep(cvCheckForm());
    cvLeaving = true;
    window.location.reload();
  } else if (target.classList.contains("cv-draft-restore")) cvDraftRestore(cvCheckForm());
  else if (target.classList.contains("cv-draft-discard")) cvDraftDiscard(cvCheckForm());
  else if (target.dataset.opens) cvOpenKeys();
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
  const target = event.target;
  // Ctrl+Enter (⌘+Enter) saves from the quote or the note, where Enter is a new line.
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.isComposing && target.closest && target.closest("#cv-check-form textarea")) {
    event.preventDefault();
    cvCheckForm().requestSubmit();
    return;
  }
  if (!steps || event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
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
    undo.requestSubmit(); // asks first when there is unsaved input (the submit listener)
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
  const checkForm = cvCheckForm();
  if (checkForm) cvDraftSetUp(checkForm);
  // What each side says of subject, time and conditions goes with those questions, below the
  // verdicts, which then start on the first screen.
  const hints = document.querySelector(".cv-snapshot .cv-table-wrap:has(.cv-snapshot-hints)");
  const fits = document.querySelector("#cv-check-form .cv-choice-subject");
  if (hints && fits) fits.before(hints);
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
