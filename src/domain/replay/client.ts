/**
 * The inline stylesheet and script of an HTML replay (`./render.ts`), as
 * text. The script reads the session from the page's JSON block and builds
 * the DOM from it with `textContent` only (never `innerHTML`), a time slice
 * at a time; it makes no request of any kind.
 *
 * @module
 */

/** The replay's stylesheet (light and dark, no fonts or images of its own). */
export const REPLAY_CSS = String.raw`
:root{color-scheme:light dark;--bg:#fff;--fg:#1d1f23;--muted:#66707a;--line:#d8dde3;--user:#eef4ff;--asst:#fafafa;--sys:#fff8e6;--term:#14171c;--termfg:#d7dde4;--add:#e3f6e5;--addfg:#135c22;--del:#fde8e8;--delfg:#8a1c1c;--err:#b3261e;--mark:#ffe066;--cur:#ff9f1c;--acc:#2f6feb}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--fg:#dde3ea;--muted:#8f9aa6;--line:#2c333b;--user:#172338;--asst:#171b20;--sys:#2b2415;--term:#07090b;--add:#12321a;--addfg:#8fe0a0;--del:#3a1616;--delfg:#f3a3a3;--err:#ff7b72;--mark:#7a6400}}
*{box-sizing:border-box}
html,body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
pre,code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
header#top{padding:16px 20px 8px;border-bottom:1px solid var(--line)}
header#top h1{margin:0 0 8px;font-size:18px;overflow-wrap:anywhere}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0;font-size:13px}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
nav#bar{position:sticky;top:0;z-index:2;display:flex;gap:6px;align-items:center;flex-wrap:wrap;padding:6px 20px;background:var(--bg);border-bottom:1px solid var(--line)}
nav#bar input{flex:0 1 280px;padding:4px 8px;border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg)}
nav#bar button{padding:3px 9px;border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg);cursor:pointer}
nav#bar .status{color:var(--muted);font-size:12px}
main#entries{padding:10px 20px 60px;max-width:1100px}
.entry{margin:10px 0;content-visibility:auto;contain-intrinsic-size:auto 90px}
.turn{border:1px solid var(--line);border-radius:6px;padding:8px 12px;scroll-margin-top:48px}
.turn.user{background:var(--user)}.turn.assistant{background:var(--asst)}.turn.system{background:var(--sys)}
.turn.current{outline:2px solid var(--acc);outline-offset:2px}
.turn>.head,.tool>.head{display:flex;gap:8px;align-items:baseline;font-size:12px;color:var(--muted);margin-bottom:4px}
.role{font-weight:600;text-transform:capitalize;color:var(--fg)}
time{color:var(--muted);font-size:12px}
.block{margin:6px 0}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
details.thinking>summary,details.facts>summary,details.sub>summary{cursor:pointer;color:var(--muted);font-size:12.5px}
details.thinking pre{white-space:pre-wrap;color:var(--muted);font-style:italic;margin:4px 0 0 14px}
.tool{border-left:3px solid var(--line);padding:2px 0 2px 10px}
.tool.error{border-left-color:var(--err)}
.tool .name{font-weight:600;color:var(--fg)}
.badge{font-size:11px;padding:0 6px;border-radius:8px;border:1px solid var(--line)}
.badge.err{color:var(--err);border-color:var(--err)}
.path{font-size:12.5px;color:var(--muted);overflow-wrap:anywhere}
pre{margin:4px 0;padding:6px 8px;border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:28em;overflow:auto;background:rgba(127,127,127,.08)}
pre.term{background:var(--term);color:var(--termfg)}
pre.term .cmd{color:#8fd18f}pre.term .err{color:#ff8f8f}
pre.diff{padding:6px 0}
pre.diff span{display:block;padding:0 8px}
pre.diff .add{background:var(--add);color:var(--addfg)}pre.diff .del{background:var(--del);color:var(--delfg)}pre.diff .ctx{color:var(--muted)}
pre.result.err{border-left:3px solid var(--err)}
.marker{color:var(--muted);font-size:12.5px;text-align:center;border-top:1px dashed var(--line);padding-top:4px}
.marker.compaction{color:var(--cur);border-top-color:var(--cur)}
details.facts{font-size:12.5px}
.fact{padding:1px 0 1px 14px}.fact .kind{font-weight:600}
details.sub{margin:8px 0 4px;border:1px dashed var(--acc);border-radius:6px;padding:6px 10px}
details.sub>dl.facts{margin:6px 0}
mark{background:var(--mark);color:inherit}mark.current{background:var(--cur)}
.empty{color:var(--muted);font-style:italic}
`

/** The replay's script (see the module doc). It exposes `window.__replay` (progress and timings, for tests and the bench). */
export const REPLAY_JS = String.raw`
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var root = document.getElementById("entries");
  var findBox = document.getElementById("find");
  var countEl = document.getElementById("count");
  var posEl = document.getElementById("pos");
  var progressEl = document.getElementById("progress");
  var entries = data.session.entries;
  var state = { total: entries.length, rendered: 0, done: false, firstPaintMs: null, doneMs: null };
  window.__replay = state;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function time(at) {
    var t = el("time", null, at.length >= 19 ? at.slice(11, 19) : at);
    t.setAttribute("datetime", at);
    t.title = at;
    return t;
  }
  function head(parts, at) {
    var h = el("div", "head");
    for (var i = 0; i < parts.length; i++) h.appendChild(parts[i]);
    if (at) h.appendChild(time(at));
    return h;
  }
  function str(v) { return typeof v === "string" ? v : null; }
  function lines(s) { return s === "" ? [] : s.replace(/\n$/, "").split("\n"); }

  function facts(rows) {
    var dl = el("dl", "facts");
    for (var i = 0; i < rows.length; i++) {
      dl.appendChild(el("dt", null, rows[i][0]));
      dl.appendChild(el("dd", null, rows[i][1]));
    }
    return dl;
  }

  function diff(before, after) {
    var pre = el("pre", "diff mono");
    var a = lines(before), b = lines(after);
    var p = 0, s = 0;
    while (p < a.length && p < b.length && a[p] === b[p]) p++;
    while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
    var CONTEXT = 3, i;
    if (p > CONTEXT) pre.appendChild(el("span", "ctx", "  \u2026 " + (p - CONTEXT) + " unchanged line(s)"));
    for (i = Math.max(0, p - CONTEXT); i < p; i++) pre.appendChild(el("span", "ctx", "  " + a[i]));
    for (i = p; i < a.length - s; i++) pre.appendChild(el("span", "del", "- " + a[i]));
    for (i = p; i < b.length - s; i++) pre.appendChild(el("span", "add", "+ " + b[i]));
    for (i = a.length - s; i < Math.min(a.length, a.length - s + CONTEXT); i++) pre.appendChild(el("span", "ctx", "  " + a[i]));
    if (s > CONTEXT) pre.appendChild(el("span", "ctx", "  \u2026 " + (s - CONTEXT) + " unchanged line(s)"));
    return pre;
  }

  function resultPre(b, cls) {
    var pre = el("pre", (cls || "result") + (b.isError === true ? " err" : ""), b.result);
    return pre;
  }

  function tool(b) {
    var box = el("div", "block tool" + (b.isError === true ? " error" : ""));
    var parts = [el("span", "name", b.name)];
    if (b.isError === true) parts.push(el("span", "badge err", "error"));
    else if (b.result === null) parts.push(el("span", "badge", "no result"));
    box.appendChild(head(parts, b.at));
    var obj = b.input !== null && typeof b.input === "object" && !Array.isArray(b.input) ? b.input : null;
    var name = b.name, shown = false;
    if (name === "Bash" && obj && str(obj.command) !== null) {
      if (str(obj.description)) box.appendChild(el("div", "path", obj.description));
      var term = el("pre", "term mono");
      term.appendChild(el("span", "cmd", "$ " + obj.command));
      if (b.result !== null) {
        term.appendChild(document.createTextNode("\n"));
        term.appendChild(el("span", b.isError === true ? "err" : "out", b.result));
      }
      box.appendChild(term);
      shown = true;
    } else if ((name === "Edit" || name === "MultiEdit") && obj && str(obj.file_path) !== null) {
      box.appendChild(el("div", "path mono", obj.file_path + (obj.replace_all === true ? "  (replace all)" : "")));
      var edits = Array.isArray(obj.edits) ? obj.edits : [obj];
      for (var i = 0; i < edits.length; i++) {
        var e = edits[i] || {};
        box.appendChild(diff(str(e.old_string) || "", str(e.new_string) || ""));
      }
    } else if (name === "Write" && obj && str(obj.file_path) !== null && str(obj.content) !== null) {
      box.appendChild(el("div", "path mono", obj.file_path));
      box.appendChild(diff("", obj.content));
    } else if (name === "Read" && obj && str(obj.file_path) !== null) {
      var range = typeof obj.offset === "number" || typeof obj.limit === "number"
        ? "  (from line " + (obj.offset || 1) + (typeof obj.limit === "number" ? ", " + obj.limit + " lines" : "") + ")" : "";
      box.appendChild(el("div", "path mono", obj.file_path + range));
    } else if (b.input !== null && b.input !== undefined) {
      box.appendChild(el("pre", "input mono", typeof b.input === "string" ? b.input : JSON.stringify(b.input, null, 2)));
    }
    if (!shown && b.result !== null) box.appendChild(resultPre(b, "result mono"));
    for (var k = 0; k < b.subagents.length; k++) box.appendChild(session(b.subagents[k]));
    return box;
  }

  function factsBlock(b, cls) {
    var d = el("details", cls + " facts");
    var nested = 0;
    for (var i = 0; i < b.facts.length; i++) nested += b.facts[i].subagents.length;
    if (nested > 0) d.open = true;
    d.appendChild(el("summary", null, b.facts.length + " runtime event" + (b.facts.length === 1 ? "" : "s") + (nested > 0 ? ", " + nested + " subagent session" + (nested === 1 ? "" : "s") : "")));
    for (var j = 0; j < b.facts.length; j++) {
      var f = b.facts[j];
      var row = el("div", "fact");
      if (f.at) { row.appendChild(time(f.at)); row.appendChild(document.createTextNode(" ")); }
      row.appendChild(el("span", "kind mono", f.kind));
      if (f.text) row.appendChild(document.createTextNode(" \u2014 " + f.text));
      d.appendChild(row);
      for (var k = 0; k < f.subagents.length; k++) d.appendChild(session(f.subagents[k]));
    }
    return d;
  }

  function compaction(b, cls) {
    var d = el("div", cls + " marker compaction");
    d.appendChild(document.createTextNode("\u2702 Context compacted" + (b.trigger ? " (" + b.trigger + ")" : "") + " \u00b7 " + b.id + " "));
    if (b.at) d.appendChild(time(b.at));
    return d;
  }

  function block(b) {
    switch (b.type) {
      case "text": return el("div", "block text", b.text);
      case "thinking": {
        var d = el("details", "block thinking");
        var s = el("summary", null, "Thinking (" + b.text.length + " characters)");
        if (b.at) { s.appendChild(document.createTextNode(" ")); s.appendChild(time(b.at)); }
        d.appendChild(s);
        d.appendChild(el("pre", null, b.text));
        return d;
      }
      case "tool": return tool(b);
      case "compaction": return compaction(b, "block");
      case "facts": return factsBlock(b, "block");
    }
    return el("div", "block", JSON.stringify(b));
  }

  function entry(e) {
    if (e.type === "turn") {
      var t = el("section", "entry turn " + e.role);
      t.tabIndex = -1;
      t.appendChild(head([el("span", "role", e.role)], e.at));
      for (var i = 0; i < e.blocks.length; i++) t.appendChild(block(e.blocks[i]));
      return t;
    }
    if (e.type === "compaction") return compaction(e, "entry");
    if (e.type === "facts") return factsBlock(e, "entry");
    return el("div", "entry", JSON.stringify(e));
  }

  function session(s) {
    var d = el("details", "sub");
    d.open = true;
    var h = s.header;
    d.appendChild(el("summary", null, "Subagent session " + h.sessionId + (h.title ? " \u2014 " + h.title : "")));
    d.appendChild(facts(s.rows));
    for (var i = 0; i < s.entries.length; i++) d.appendChild(entry(s.entries[i]));
    if (s.entries.length === 0) d.appendChild(el("div", "empty", "No conversation events."));
    for (var k = 0; k < s.unplaced.length; k++) d.appendChild(session(s.unplaced[k]));
    return d;
  }

  // ---- progressive rendering: a time slice per task, the first paint as soon as the first slice is in.
  var next = 0;
  var channel = new MessageChannel();
  function slice(budget) {
    var t0 = performance.now();
    var frag = document.createDocumentFragment();
    while (next < entries.length) {
      frag.appendChild(entry(entries[next++]));
      if (performance.now() - t0 > budget) break;
    }
    root.appendChild(frag);
    state.rendered = next;
    if (next >= entries.length) return finish();
    progressEl.textContent = "rendering " + next + " / " + entries.length + "\u2026";
    channel.port2.postMessage(0);
  }
  function finish() {
    if (state.done) return;
    var rest = data.session.unplaced;
    for (var k = 0; k < rest.length; k++) root.appendChild(session(rest[k]));
    if (entries.length === 0 && rest.length === 0) root.appendChild(el("div", "empty", "No conversation events in this session."));
    state.done = true;
    state.doneMs = performance.now();
    progressEl.textContent = "";
    document.documentElement.setAttribute("data-replay", "done");
  }
  channel.port1.onmessage = function () { slice(12); };
  function renderAll() { while (!state.done) slice(1e9); }
  slice(40);
  requestAnimationFrame(function () { setTimeout(function () { state.firstPaintMs = performance.now(); }, 0); });

  // ---- find in session
  var marks = [], current = -1, total = 0, timer = 0;
  var MAX_MARKS = 10000;
  function clearMarks() {
    var parents = [];
    for (var i = 0; i < marks.length; i++) {
      var m = marks[i], p = m.parentNode;
      if (!p) continue;
      p.replaceChild(document.createTextNode(m.textContent), m);
      if (parents.indexOf(p) < 0) parents.push(p);
    }
    for (var j = 0; j < parents.length; j++) parents[j].normalize();
    marks = []; current = -1; total = 0;
  }
  function find(q) {
    renderAll();
    clearMarks();
    if (q === "") { countEl.textContent = ""; return; }
    var re = new RegExp(q.replace(/[.*+?^$()|[\]\\{}]/g, "\\$&"), "gi");
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    var nodes = [], n;
    while ((n = walker.nextNode())) nodes.push(n);
    for (var i = 0; i < nodes.length; i++) {
      var node = nodes[i], text = node.nodeValue, m, last = 0, frag = null;
      re.lastIndex = 0;
      while ((m = re.exec(text)) !== null) {
        if (m[0].length === 0) { re.lastIndex++; continue; }
        total++;
        if (marks.length >= MAX_MARKS) continue;
        if (frag === null) frag = document.createDocumentFragment();
        frag.appendChild(document.createTextNode(text.slice(last, m.index)));
        var mk = el("mark", null, m[0]);
        frag.appendChild(mk);
        marks.push(mk);
        last = m.index + m[0].length;
      }
      if (frag !== null) {
        frag.appendChild(document.createTextNode(text.slice(last)));
        node.parentNode.replaceChild(frag, node);
      }
    }
    if (total === 0) { countEl.textContent = "no match"; return; }
    go(1);
  }
  function go(d) {
    if (marks.length === 0) return;
    if (current >= 0) marks[current].classList.remove("current");
    current = (current + d + marks.length) % marks.length;
    var m = marks[current];
    m.classList.add("current");
    for (var p = m.parentElement; p && p !== root; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true;
    m.scrollIntoView({ block: "center" });
    countEl.textContent = (current + 1) + " of " + total + (total > marks.length ? " (first " + marks.length + " marked)" : "");
  }
  findBox.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { find(findBox.value); }, 150);
  });
  findBox.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") {
      ev.preventDefault();
      clearTimeout(timer);
      if (marks.length === 0 || total === 0) find(findBox.value); else go(ev.shiftKey ? -1 : 1);
    } else if (ev.key === "Escape") {
      findBox.value = ""; find(""); findBox.blur();
    }
  });
  document.getElementById("next").addEventListener("click", function () { go(1); });
  document.getElementById("prev").addEventListener("click", function () { go(-1); });

  // ---- keyboard navigation between turns (j / k, arrows; / finds)
  var turns = root.getElementsByClassName("turn");
  var at = -1;
  function move(d) {
    if (turns.length === 0) return;
    if (at >= 0 && at < turns.length) turns[at].classList.remove("current");
    at = Math.max(0, Math.min(turns.length - 1, at + d));
    var t = turns[at];
    for (var p = t.parentElement; p && p !== root; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true;
    t.classList.add("current");
    t.focus({ preventScroll: true });
    t.scrollIntoView({ block: "start" });
    posEl.textContent = "turn " + (at + 1) + " of " + turns.length + (state.done ? "" : "+");
  }
  document.addEventListener("keydown", function (ev) {
    var tag = ev.target && ev.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || ev.metaKey || ev.ctrlKey || ev.altKey) return;
    if (ev.key === "j" || ev.key === "ArrowDown") { ev.preventDefault(); move(1); }
    else if (ev.key === "k" || ev.key === "ArrowUp") { ev.preventDefault(); move(-1); }
    else if (ev.key === "n") go(1);
    else if (ev.key === "N") go(-1);
    else if (ev.key === "/") { ev.preventDefault(); findBox.focus(); findBox.select(); }
  });
})();
`
