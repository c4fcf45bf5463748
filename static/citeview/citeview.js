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

function setUpIntake(form) {
  const maxBytes = Number(form.dataset.maxBytes || 0);
  const busy = form.querySelector(".cv-busy");
  const progress = form.querySelector(".cv-progress");
  const button = form.querySelector("button[type=submit]");
  const fileInput = form.querySelector("input[type=file][name=file]");

  // Drag and drop: a file dropped on a file picker goes there; dropped elsewhere on the form, it is the dump.
  form.addEventListener("dragover", (event) => {
    event.preventDefault();
    form.classList.add("cv-dragging");
  });
  form.addEventListener("dragleave", () => form.classList.remove("cv-dragging"));
  form.addEventListener("drop", (event) => {
    event.preventDefault();
    form.classList.remove("cv-dragging");
    if (!event.dataTransfer || !event.dataTransfer.files.length) return;
    const picker = event.target.closest(".cv-file");
    const target = (picker && picker.querySelector("input[type=file]")) || fileInput;
    target.files = event.dataTransfer.files;
    target.dispatchEvent(new Event("change", { bubbles: true }));
  });

  form.addEventListener("submit", (event) => {
    const text = form.querySelector("textarea[name=text]");
    const chosen = fileInput && fileInput.files.length ? fileInput.files[0] : null;
    const size = chosen ? chosen.size : new Blob([text ? text.value : ""]).size;
    if (maxBytes && size > maxBytes) {
      // Refuse before sending: the paste stays in the box.
      event.preventDefault();
      const error = form.querySelector(".cv-client-error");
      error.textContent = form.dataset.tooLarge
        .replace("SIZE", size.toLocaleString())
        .replace("LIMIT", maxBytes.toLocaleString());
      error.hidden = false;
      error.focus();
      return;
    }
    button.disabled = true;
    busy.textContent = form.dataset.busy;
    if (!chosen) return; // a paste goes as a plain form post
    event.preventDefault();
    sendWithProgress(form, progress, busy);
  });
}

// The form is sent with XMLHttpRequest only to show upload progress. A dump stored (or found stored)
// is opened as a plain form post opens it: the browser goes to its address, so the address bar shows
// it and Back returns to this form. Anything else (this page with its message) is shown in place,
// under this page's own address.
function sendWithProgress(form, progress, busy) {
  const request = new XMLHttpRequest();
  request.open("POST", form.action || window.location.href);
  request.setRequestHeader("X-Citeview-Upload", "1");
  request.upload.addEventListener("progress", (event) => {
    if (!event.lengthComputable) return;
    progress.hidden = false;
    progress.value = Math.round((event.loaded / event.total) * 100);
  });
  request.upload.addEventListener("load", () => {
    progress.value = 100;
    busy.textContent = form.dataset.busy;
  });
  request.upload.addEventListener("loadstart", () => {
    busy.textContent = "";
  });
  request.addEventListener("load", () => {
    const stored = request.getResponseHeader("X-Citeview-Location");
    if (stored) {
      window.location.assign(stored);
      return;
    }
    document.open();
    document.write(request.responseText);
    document.close();
  });
  request.addEventListener("error", () => form.submit());
  request.send(new FormData(form));
}

// Back from a dump shows this page as it was left, possibly from the browser's cache: the form is
// ready again, not still saying that it is reading.
window.addEventListener("pageshow", (event) => {
  if (!event.persisted) return;
  document.querySelectorAll(".cv-intake-form").forEach((form) => {
    const button = form.querySelector("button[type=submit]");
    const progress = form.querySelector(".cv-progress");
    if (button) button.disabled = false;
    form.querySelector(".cv-busy").textContent = "";
    if (progress) {
      progress.hidden = true;
      progress.value = 0;
    }
  });
});

// A file dropped outside the form must not replace the page (and the paste with it).
["dragover", "drop"].forEach((type) =>
  window.addEventListener(type, (event) => {
    if (!event.target.closest || !event.target.closest(".cv-intake-form")) event.preventDefault();
  }),
);

// A footnote's cards (its sources', and its own quote) are written once per answer, out of sight in
// .cv-cards; its links name them in aria-describedby, which is also what a screen reader reads. Hovering
// or focusing a footnote shows copies of them beside it; without this script the link still leads to
// the source in the list.
function showCards(link) {
  const footnote = link.closest(".cv-cite");
  if (!footnote || footnote.querySelector(":scope > .cv-pop")) return;
  hideCards();
  const pop = document.createElement("span");
  pop.className = "cv-pop";
  pop.setAttribute("aria-hidden", "true"); // read already, as the link's description
  for (const id of (link.getAttribute("aria-describedby") || "").split(" ")) {
    const card = id && document.getElementById(id);
    if (!card) continue;
    const copy = card.cloneNode(true);
    copy.removeAttribute("id");
    copy.removeAttribute("role");
    pop.appendChild(copy);
  }
  if (!pop.childNodes.length) return;
  if (lastPointer === "touch") addJump(pop, link);
  footnote.appendChild(pop);
}

// On a touch screen a tap on a footnote does one thing: it pops the cards (a tap is no hover, and
// the jump used to follow at once). The card then holds the link to the source in the list.
var lastPointer = "mouse";
document.addEventListener("pointerdown", (event) => {
  lastPointer = event.pointerType;
}, true);

function addJump(pop, link) {
  const target = link.getAttribute("href") || "";
  if (!target.startsWith("#") || !document.getElementById(target.slice(1))) return;
  const jump = document.createElement("a");
  jump.className = "cv-pop-jump";
  jump.href = target;
  jump.tabIndex = -1; // for a finger: the link itself is the keyboard's way
  jump.textContent = document.body.dataset.jumpToSource || "↓";
  pop.appendChild(jump);
}

document.addEventListener("click", (event) => {
  if (event.target.closest && event.target.closest(".cv-pop-jump")) {
    setTimeout(hideCards); // after the jump: a link taken out of the page would go nowhere
    return;
  }
  const link = footnoteLink(event);
  if (!link || lastPointer !== "touch") return;
  event.preventDefault();
  const pop = link.closest(".cv-cite") && link.closest(".cv-cite").querySelector(":scope > .cv-pop");
  if (!pop) showCards(link);
  else if (!pop.querySelector(".cv-pop-jump")) addJump(pop, link);
});

function hideCards() {
  document.querySelectorAll(".cv-cite > .cv-pop").forEach((pop) => pop.remove());
}

function footnoteLink(event) {
  return event.target.closest && event.target.closest(".cv-cite-link");
}
document.addEventListener("mouseover", (event) => {
  const link = footnoteLink(event);
  if (link) showCards(link);
});
document.addEventListener("focusin", (event) => {
  const link = footnoteLink(event);
  if (link) showCards(link);
});
// A card stays while the pointer is over its footnote (the card included) or the focus is in it.
document.addEventListener("mouseout", (event) => {
  const footnote = event.target.closest && event.target.closest(".cv-cite");
  if (!footnote || footnote.contains(event.relatedTarget) || footnote.contains(document.activeElement)) return;
  footnote.querySelectorAll(":scope > .cv-pop").forEach((pop) => pop.remove());
});
document.addEventListener("focusout", (event) => {
  const footnote = event.target.closest && event.target.closest(".cv-cite");
  if (!footnote || footnote.contains(event.relatedTarget) || footnote.matches(":hover")) return;
  footnote.querySelectorAll(":scope > .cv-pop").forEach((pop) => pop.remove());
});

// Escape hides an open source card or explanation until the pointer or the focus moves on.
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  document.body.classList.add("cv-pops-dismissed");
  hideCards();
});
["mousemove", "focusin"].forEach((type) =>
  document.addEventListener(type, () => document.body.classList.remove("cv-pops-dismissed")),
);

document.addEventListener("DOMContentLoaded", () => {
  const form = document.querySelector(".cv-intake-form");
  if (form) setUpIntake(form);
  // A file chosen by picker or drop is named next to the picker.
  document.querySelectorAll("input[type=file]").forEach((input) => {
    input.addEventListener("change", () => {
      let note = input.parentElement.querySelector(".cv-file-name");
      if (!note) {
        note = document.createElement("span");
        note.className = "cv-file-name";
        input.parentElement.appendChild(note);
      }
      // Several documents are the answer's document 0, 1, … in the order chosen: each is named with its number.
      const names = Array.from(input.files, (file, index) => (input.multiple ? `${index}: ${file.name}` : file.name));
      note.textContent = names.join(", ");
    });
  });
});

// A new API token is shown once: a button copies it whole, and says so.
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("button[data-copy]").forEach((button) => {
    const field = document.getElementById(button.dataset.copy);
    if (!field) return;
    button.hidden = false;
    button.addEventListener("click", async () => {
      field.select();
      try {
        await navigator.clipboard.writeText(field.value);
        button.textContent = button.dataset.copied;
      } catch {
        document.execCommand("copy"); // the field is selected: the browser's own copy still works
        button.textContent = button.dataset.copied;
      }
    });
  });
});

// The "N unresolved" chip leads to the first unresolved marker drawn; pressed again, to the next,
// and round again after the last.
document.addEventListener("click", (event) => {
  const chip = event.target.closest && event.target.closest(".cv-unresolved-chip");
  const response = chip && chip.closest(".cv-response");
  if (!response) return;
  const markers = [...response.querySelectorAll(".cv-answer .cv-unresolved[id]")];
  const at = markers.findIndex((marker) => "#" + marker.id === window.location.hash);
  if (at === -1 || markers.length < 2) return; // the link's own address: the first one
  event.preventDefault();
  window.location.hash = markers[(at + 1) % markers.length].id;
});

// Search within one dump: the answers, their sources and evidence, with every match highlighted
// (the CSS Custom Highlight API: the page's own elements are left as they are) and the current one
// scrolled to. `/` focuses the box, Enter goes to the next match (Shift+Enter the previous), Escape
// clears. Letters match whatever their case or width (Ａ, a; ３, 3; ｶ, カ). Without this script the
// browser's own find does the same.
// In a scope of its own: the upload writes a refused form's page in place, and runs this file again.
(() => {
  const FIND_SCOPE = ".cv-answer, .cv-source-list, .cv-evidence-rows";
  const FIND_SKIPPED = ".cv-cards, .cv-pop, .cv-tip, .cv-sr, [hidden], script, style";
  const FIND_MAX = 5000; // matches highlighted; more are counted as "5000+"

  // A character folded so that case and width do not matter, when the fold keeps its length (offsets
  // in the folded text are then offsets in the page's text).
  function foldText(text) {
    let folded = "";
    for (const c of text) {
      const f = c.normalize("NFKC").toLowerCase();
      folded += f.length === c.length ? f : c;
    }
    return folded;
  }

  function findIndex() {
    // Each scope's text nodes and their folded text, joined, with where each node starts.
    return [...document.querySelectorAll(FIND_SCOPE)].map((root) => {
      const nodes = [];
      const starts = [];
      let text = "";
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
        acceptNode: (node) =>
          node.parentElement && node.parentElement.closest(FIND_SKIPPED) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
      });
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        nodes.push(node);
        starts.push(text.length);
        text += foldText(node.data);
      }
      return { nodes, starts, text };
    });
  }

  function nodeAt(scope, offset) {
    let low = 0;
    let high = scope.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (scope.starts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return [scope.nodes[low], offset - scope.starts[low]];
  }

  function findMatches(index, query) {
    const ranges = [];
    let more = false;
    for (const scope of index) {
      for (let at = scope.text.indexOf(query); at !== -1; at = scope.text.indexOf(query, at + query.length)) {
        if (ranges.length === FIND_MAX) {
          more = true;
          break;
        }
        const range = document.createRange();
        const [startNode, startOffset] = nodeAt(scope, at);
        const [endNode, endOffset] = nodeAt(scope, at + query.length - 1);
        range.setStart(startNode, startOffset);
        range.setEnd(endNode, endOffset + 1);
        ranges.push(range);
      }
    }
    return { ranges, more };
  }

  function setUpFind(form) {
    const input = form.querySelector(".cv-find-input");
    const status = form.querySelector(".cv-find-status");
    const highlights = window.CSS && CSS.highlights;
    let index = null;
    let found = { ranges: [], more: false };
    let current = -1;
    let timer = 0;

    form.hidden = false;
    document.querySelectorAll(".cv-find-fallback").forEach((hint) => (hint.hidden = true));

    function paint() {
      if (!highlights) return;
      highlights.set("cv-find", new Highlight(...found.ranges));
      highlights.set("cv-find-current", new Highlight(...(current >= 0 ? [found.ranges[current]] : [])));
    }

    function say() {
      if (!input.value) status.textContent = "";
      else if (!found.ranges.length) status.textContent = form.dataset.none;
      else {
        const total = found.ranges.length.toLocaleString() + (found.more ? "+" : "");
        status.textContent = form.dataset.match.replace("CURRENT", (current + 1).toLocaleString()).replace("TOTAL", total);
      }
    }

    function show(range) {
      const element = range.startContainer.parentElement;
      for (let details = element.closest("details"); details; details = details.parentElement.closest("details")) {
        details.open = true;
      }
      element.scrollIntoView({ block: "center" });
    }

    function search() {
      clearTimeout(timer);
      const query = foldText(input.value);
      if (!index) index = findIndex();
      found = query ? findMatches(index, query) : { ranges: [], more: false };
      current = found.ranges.length ? 0 : -1;
      paint();
      say();
    }

    function step(by) {
      if (!input.value) return;
      if (!index || form.dataset.searched !== input.value) {
        search();
        form.dataset.searched = input.value;
        by = 0;
      }
      if (!found.ranges.length) return;
      current = (current + by + found.ranges.length) % found.ranges.length;
      paint();
      say();
      show(found.ranges[current]);
    }

    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        search();
        form.dataset.searched = input.value;
        if (found.ranges.length) show(found.ranges[0]);
      }, 150);
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      step(1);
    });
    form.querySelector(".cv-find-previous").addEventListener("click", () => step(-1));
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && event.shiftKey) {
        event.preventDefault();
        step(-1);
      } else if (event.key === "Escape") {
        event.preventDefault();
        if (!input.value) input.blur();
        input.value = "";
        delete form.dataset.searched;
        search();
      }
    });

    document.addEventListener("keydown", (event) => {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target;
      if (target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
      event.preventDefault();
      input.focus();
      input.select();
    });

    // A diagnostic without a place of its own (a marker in code, a notation citeview does not read)
    // is found by searching for what it names.
    document.querySelectorAll(".cv-find-this").forEach((button) => {
      button.hidden = false;
      button.addEventListener("click", () => {
        input.value = button.dataset.find;
        search();
        form.dataset.searched = input.value;
        if (found.ranges.length) show(found.ranges[0]);
        input.focus();
      });
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    const form = document.querySelector(".cv-find");
    if (form) setUpFind(form);
  });
})();

// The header's menu on a phone (a <details>, which opens and closes without this script): Escape
// closes it and gives the focus back to its toggle, and so does a click or tap outside it.
document.addEventListener("keydown", (event) => {
  const menu = event.key === "Escape" && document.querySelector(".cv-menu[open]");
  const toggle = menu && menu.querySelector(":scope > summary");
  if (!toggle || !toggle.checkVisibility()) return; // wide: nothing is folded, nothing to close
  menu.open = false;
  toggle.focus();
});
document.addEventListener("click", (event) => {
  const menu = document.querySelector(".cv-menu[open]");
  if (menu && !menu.contains(event.target)) menu.open = false;
});

// The list's box in the column of boxes ticks (or unticks) every dump of the page for the bulk
// assignment; ticking a dump's own box says on it whether all, some or none are ticked.
document.addEventListener("change", (event) => {
  const boxes = [...document.querySelectorAll(".cv-dump-table input[name=dumps]")];
  const all = document.querySelector(".cv-choose-all");
  if (!all || !boxes.length) return;
  if (event.target === all) {
    boxes.forEach((box) => { box.checked = all.checked; });
  } else if (boxes.includes(event.target)) {
    const ticked = boxes.filter((box) => box.checked).length;
    all.checked = ticked === boxes.length;
    all.indeterminate = ticked > 0 && ticked < boxes.length;
  }
});

// --- Drafts every page clears ------------------------------------------------------------------
// The check page's script (check.js, loaded there alone) keeps the check form's input in this
// browser as drafts. Two moments to clear them come on any page, so they are here: a save that went
// through, seen on the page it led to, and signing out.
var CV_DRAFT_PREFIX = "citeview:draft:";
var CV_DRAFT_SAVING = "citeview:draft-saving";

// The check form was sent: when the next page is another one (not the form of the draft `openKey`,
// sent back with what it could not save), the save went through and its draft goes.
function cvForgetSavedDraft(openKey) {
  try {
    const saving = window.sessionStorage.getItem(CV_DRAFT_SAVING);
    window.sessionStorage.removeItem(CV_DRAFT_SAVING);
    if (saving && saving !== openKey) window.localStorage.removeItem(saving);
  } catch (error) {
    // Storage off: nothing was kept.
  }
}

// Signing out takes every draft of this browser with it, whoever typed it: on a shared machine the
// next person could read them in the developer tools. Done as the Log out form is sent, and again on
// the page that says the sign-out is done (data-cv-forget-drafts), for a form sent without this file.
function cvForgetAllDrafts() {
  try {
    for (let index = window.localStorage.length - 1; index >= 0; index -= 1) {
      const key = window.localStorage.key(index);
      if (key && key.startsWith(CV_DRAFT_PREFIX)) window.localStorage.removeItem(key);
    }
    window.sessionStorage.removeItem(CV_DRAFT_SAVING);
  } catch (error) {
    // Storage off: nothing was kept.
  }
}

// On the window, so after every listener on the document: check.js's may stop a Log out that would
// leave unsaved input (and send it again once the editor chose to leave).
window.addEventListener("submit", (event) => {
  if (!event.defaultPrevented && event.target.matches(".cv-logout-form")) cvForgetAllDrafts();
});

document.addEventListener("DOMContentLoaded", () => {
  if (document.querySelector("[data-cv-forget-drafts]")) cvForgetAllDrafts();
  if (!document.getElementById("cv-check-form")) cvForgetSavedDraft(null); // the check page does it itself
});
