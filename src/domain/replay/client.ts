/**
 * The inline stylesheet and script of an HTML replay (`./render.ts`), as
 * text. The script reads the session from the page's JSON block and builds
 * the DOM from it with `textContent` only (never `innerHTML`), a time slice
 * at a time; it makes no request of any kind.
 *
 * Every text goes into the page through `putText()`, which cuts long unbroken
 * runs with `<wbr>` (`./wrap.ts`), so that laying a page out takes time
 * linear in its text whatever the text is, and puts a long text (more than
 * twice 4,096 characters) in blocks cut after a line feed, each
 * `content-visibility:auto`, so that what is out of view is not laid out.
 *
 * @module
 */
import { PIECES_JS } from "./wrap.js"

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
.turn.pending{min-height:110px}
.blocks{content-visibility:auto}
.tc{display:block;content-visibility:auto}
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
.tool.orphan{border-left-style:dashed}
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
  // The session comes in JSON blocks: this script runs after the first (the header and the first entries)
  // while the parser still reads the others (#replay-chunk-1, 2, ..., then #replay-end).
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var root = document.getElementById("entries");
  var findBox = document.getElementById("find");
  var countEl = document.getElementById("count");
  var posEl = document.getElementById("pos");
  var progressEl = document.getElementById("progress");
  var entries = data.entries;
  var state = { total: data.total, loaded: entries.length, rendered: 0, hydrated: 0, blocks: 0, done: false, firstPaintMs: null, doneMs: null };
  window.__replay = state;
  var chunk = 1;
  /** Take in the JSON blocks the parser has finished (one is finished when the next element has begun). */
  function pull() {
    for (;;) {
      var block = document.getElementById("replay-chunk-" + chunk);
      if (!block) return;
      if (!document.getElementById("replay-chunk-" + (chunk + 1)) && !document.getElementById("replay-end")) return;
      var part = JSON.parse(block.textContent);
      block.textContent = "";
      for (var i = 0; i < part.length; i++) entries.push(part[i]);
      state.loaded = entries.length;
      chunk++;
    }
  }

  ${PIECES_JS}
  // A long text (a tool's output of megabytes) goes in as blocks of about TEXT_CHUNK characters cut after a line
  // feed, each content-visibility:auto: what is out of view (below a scrolled box's edge) is not laid out, as text
  // whose glyphs no installed font has (emoji, CJK) costs chromium a font search wherever it lays it out (one 2 MiB
  // result took 33 s to show). Each block keeps its line feed: the text, its copy and its look are the same.
  var TEXT_CHUNK = 4096;
  /** 's' appended to 'e' as text, its long unbroken runs cut by <wbr> (see pieces), a long one in blocks. */
  function putText(e, s) {
    if (s.length <= 2 * TEXT_CHUNK) return putRuns(e, s);
    for (var from = 0, n = s.length; from < n;) {
      var to = n - from <= 2 * TEXT_CHUNK ? -1 : s.indexOf("\n", from + TEXT_CHUNK);
      to = to < 0 ? n : to + 1;
      if (from === 0 && to === n) return putRuns(e, s);
      var c = document.createElement("span");
      c.className = "tc";
      c.style.containIntrinsicSize = "auto " + Math.ceil(textLines(s, from, to) * 18.2) + "px";
      e.appendChild(putRuns(c, s.slice(from, to)));
      from = to;
    }
    return e;
  }
  /** About how many lines s[from, to) takes in a box about 120 characters wide. */
  function textLines(s, from, to) {
    var lines = 0;
    for (var at = from; at < to;) {
      var nl = s.indexOf("\n", at);
      var end = nl < 0 || nl >= to ? to : nl;
      lines += Math.max(1, Math.ceil((end - at) / 120));
      at = end + 1;
    }
    return lines;
  }
  function putRuns(e, s) {
    var ps = s.length > LONG_RUN ? pieces(s) : [s];
    if (ps.length === 1) { e.appendChild(document.createTextNode(s)); return e; }
    var frag = document.createDocumentFragment();
    for (var i = 0; i < ps.length; i++) {
      if (i > 0) frag.appendChild(document.createElement("wbr"));
      frag.appendChild(document.createTextNode(ps[i]));
    }
    e.appendChild(frag);
    return e;
  }
  function el(tag, cls, s) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (s !== undefined && s !== null) putText(e, String(s));
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
      if (f.text) putText(row, " \u2014 " + f.text);
      d.appendChild(row);
      for (var k = 0; k < f.subagents.length; k++) d.appendChild(session(f.subagents[k]));
    }
    return d;
  }

  function compaction(b, cls) {
    var d = el("div", cls + " marker compaction");
    putText(d, "\u2702 Context compacted" + (b.trigger ? " (" + b.trigger + ")" : "") + " \u00b7 " + b.id + " ");
    if (b.at) d.appendChild(time(b.at));
    return d;
  }

  // A tool result whose call is not in the session: a block of its own. Its call was not read when the session has
  // skipped lines (too deep, torn); else no call with its id is in the session (tester31a F7).
  function orphan(b, cls) {
    var box = el("div", cls + " tool orphan" + (b.isError === true ? " error" : ""));
    var why = b.linesSkipped ? "its call was not read" : b.id ? "no call with this id in the session" : "it names no call";
    var parts = [el("span", "name", "tool output"), el("span", "badge", why)];
    if (b.isError === true) parts.push(el("span", "badge err", "error"));
    if (b.id) parts.push(el("span", "path mono", b.id));
    box.appendChild(head(parts, b.at));
    box.appendChild(resultPre(b, "result mono"));
    return box;
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
      case "orphan": return orphan(b, "block");
    }
    return el("div", "block", JSON.stringify(b));
  }

  // A turn's blocks, appended to it (a shell until then); a turn of more than GROUP blocks gets them a group at a
  // time: each group a placeholder of about its height, filled in when it comes near the viewport (or find or the
  // keys go to it), so that a one-turn session of 15,000 tool calls lays out what is seen, not all of it (tester21b F3:
  // text whose glyphs no installed font has, emoji or CJK, costs chromium a font search at every occurrence it lays
  // out). Filled groups keep content-visibility:auto, so what scrolled away is not laid out again.
  var GROUP = 20;
  /** About how tall blocks from..to-1 will be (px): a placeholder's height. */
  function guess(bs, from, to) {
    var h = 0;
    for (var i = from; i < to; i++) {
      var b = bs[i], n = b.type === "tool" || b.type === "orphan" ? (typeof b.result === "string" ? b.result.length : 0) + 100 : b.type === "text" ? b.text.length : 0;
      h += 36 + 18 * Math.min(Math.ceil(n / 110), b.type === "text" ? 400 : 20);
    }
    return h;
  }
  function fill(t, e) {
    var n = e.blocks.length;
    t._blocks = [];
    t._groups = [];
    if (n <= GROUP) {
      for (var i = 0; i < n; i++) t.appendChild(t._blocks[i] = block(e.blocks[i]));
      state.blocks += n;
      return;
    }
    for (var g = 0; g < n; g += GROUP) {
      var p = el("div", "blocks pending");
      p._t = t; p._e = e; p._from = g;
      p.style.minHeight = guess(e.blocks, g, Math.min(n, g + GROUP)) + "px";
      t._groups.push(p);
      t.appendChild(p);
      if (g === 0) fillGroup(p); else io.observe(p);
    }
  }
  /** A group's blocks, appended to it (marked when its turn is). */
  function fillGroup(p) {
    if (!p.classList.contains("pending")) return;
    p.classList.remove("pending");
    io.unobserve(p);
    p.style.containIntrinsicSize = "auto " + p.style.minHeight;
    p.style.minHeight = "";
    var t = p._t, bs = p._e.blocks, end = Math.min(bs.length, p._from + GROUP);
    for (var i = p._from; i < end; i++) p.appendChild(t._blocks[i] = block(bs[i]));
    state.blocks += end - p._from;
    if (t._marks && rx !== null) markNodes(p, t._marks);
  }
  /** Block 'b' of the filled turn 't', its group filled in first. */
  function blockAt(t, b) {
    if (!t._blocks[b]) fillGroup(t._groups[Math.floor(b / GROUP)]);
    return t._blocks[b];
  }

  function entry(e) {
    if (e.type === "turn") {
      var t = el("section", "entry turn " + e.role);
      t.tabIndex = -1;
      t.appendChild(head([el("span", "role", e.role)], e.at));
      fill(t, e);
      return t;
    }
    if (e.type === "compaction") return compaction(e, "entry");
    if (e.type === "facts") return factsBlock(e, "entry");
    if (e.type === "orphan") return orphan(e, "entry");
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

  // ---- progressive rendering: every entry's shell a time slice at a time (its role and time); a turn's
  // blocks are filled in when it comes near the viewport, or when find or the keys go to it.
  var shells = [];
  var turnCount = 0;
  var hits = null, rx = null, hitSet = null;
  var io = new IntersectionObserver(function (list) {
    for (var i = 0; i < list.length; i++) {
      if (!list[i].isIntersecting) continue;
      var x = list[i].target;
      if (x._t) fillGroup(x); else hydrate(x);
    }
  }, { rootMargin: "1500px 0px" });
  function shell(e, i) {
    var t;
    if (e.type === "turn") {
      t = el("section", "entry turn pending " + e.role);
      t.tabIndex = -1;
      t._n = ++turnCount;
      t.appendChild(head([el("span", "role", e.role)], e.at));
      io.observe(t);
    } else {
      t = entry(e);
      if (hitSet !== null && hitSet[i]) markIn(t);
    }
    t._i = i;
    return t;
  }
  function hydrate(t) {
    if (!t.classList.contains("pending")) return;
    t.classList.remove("pending");
    io.unobserve(t);
    fill(t, entries[t._i]);
    state.hydrated++;
    if (hitSet !== null && hitSet[t._i]) markIn(t);
  }
  var next = 0;
  var channel = new MessageChannel();
  function slice(budget) {
    pull();
    var t0 = performance.now();
    var frag = document.createDocumentFragment();
    while (next < entries.length) {
      var s = shell(entries[next], next);
      shells.push(s);
      frag.appendChild(s);
      next++;
      if (performance.now() - t0 > budget) break;
    }
    root.appendChild(frag);
    state.rendered = next;
    if (next >= state.total) return finish();
    progressEl.textContent = "loading " + next + " / " + state.total + "\u2026";
    if (next < entries.length) channel.port2.postMessage(0);
    else setTimeout(function () { slice(12); }, 10);
  }
  function finish() {
    if (state.done) return;
    var rest = data.unplaced;
    for (var k = 0; k < rest.length; k++) root.appendChild(session(rest[k]));
    if (state.total === 0 && rest.length === 0) root.appendChild(el("div", "empty", "No conversation events in this session."));
    state.done = true;
    state.doneMs = performance.now();
    progressEl.textContent = "";
    document.documentElement.setAttribute("data-replay", "done");
    if (rx !== null) search(findBox.value, true);
  }
  channel.port1.onmessage = function () { slice(12); };
  slice(30);
  for (var h0 = 0; h0 < Math.min(shells.length, 20); h0++) hydrate(shells[h0]);
  requestAnimationFrame(function () { setTimeout(function () { state.firstPaintMs = performance.now(); }, 0); });
  /** Shells up to entry 'i', made now (find and the keys may go past the slices). */
  function shellAt(i) {
    pull();
    if (i >= entries.length) return null;
    if (i >= next) {
      var frag = document.createDocumentFragment();
      while (next <= i) { var s = shell(entries[next], next); shells.push(s); frag.appendChild(s); next++; }
      root.appendChild(frag);
      state.rendered = next;
    }
    return shells[i];
  }

  // ---- find in session: matches counted in the session's text, marked in the entries shown
  var texts = [];
  function collect(v, out, keys) {
    if (typeof v === "string") out.push(v);
    else if (typeof v === "number" || typeof v === "boolean") out.push(String(v));
    else if (Array.isArray(v)) { for (var i = 0; i < v.length; i++) collect(v[i], out, keys); }
    else if (v !== null && typeof v === "object") {
      for (var k in v) {
        if (!Object.prototype.hasOwnProperty.call(v, k) || k === "at" || k === "type") continue;
        if (keys) out.push(k);
        collect(v[k], out, keys || k === "input");
      }
    }
  }
  // An entry's texts are searched one by one, never joined: a query (a pasted U+0000, any separator) cannot match
  // across two of them, where the page has no text to mark (tester38 F6: "1 of N" with nothing marked).
  /** The texts of 'v' in NFC, as search counts them (each apart). */
  function textsOf(v) {
    var out = [];
    collect(v, out, false);
    for (var j = 0; j < out.length; j++) out[j] = out[j].normalize("NFC");
    return out;
  }
  function textOf(i) {
    if (texts[i] === undefined) texts[i] = textsOf(entries[i]);
    return texts[i];
  }
  /** How many times 'rx' matches in 'list' (texts), in each text apart. */
  function countAll(list) {
    var c = 0;
    for (var j = 0; j < list.length; j++) { rx.lastIndex = 0; while (rx.exec(list[j]) !== null) c++; }
    return c;
  }
  var marked = [], current = -1, total = 0, timer = 0;
  function clearMarks() {
    for (var i = 0; i < marked.length; i++) {
      var t = marked[i], ms = t._marks || [];
      var parents = [];
      for (var j = 0; j < ms.length; j++) {
        var m = ms[j], p = m.parentNode;
        if (!p) continue;
        p.replaceChild(document.createTextNode(m.textContent), m);
        if (parents.indexOf(p) < 0) parents.push(p);
      }
      for (var k = 0; k < parents.length; k++) parents[k].normalize();
      t._marks = null;
    }
    marked = [];
  }
  function markIn(t) {
    if (t._marks) return;
    t._marks = [];
    markNodes(t, t._marks);
    marked.push(t);
  }
  // Find compares text in NFC, the query's and the session's (tester23b F10: a typed \u00e9 found no e + U+0301,
  // as macOS file names write it); a mark holds the text as the page shows it.
  /** A character with what NFC may compose it with: marks, and Hangul vowel and final jamo. */
  var PIECE = /[\s\S][\p{M}\u1160-\u11ff]*/gu;
  /** 'text' in NFC, and for each of its code units the start ('from') and end ('to') in 'text' of the piece it comes from. */
  function nfcMap(text) {
    var parts = [], from = [], to = [], m;
    PIECE.lastIndex = 0;
    while ((m = PIECE.exec(text)) !== null) {
      var p = m[0].normalize("NFC"), end = m.index + m[0].length;
      for (var j = 0; j < p.length; j++) { from.push(m.index); to.push(end); }
      parts.push(p);
    }
    return { text: parts.join(""), from: from, to: to };
  }
  /** The matches of 'rx' in the text under 'root', wrapped in <mark> and added to 'list'. */
  function markNodes(root, list) {
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    var nodes = [], n;
    while ((n = walker.nextNode())) nodes.push(n);
    for (var i = 0; i < nodes.length; i++) {
      var node = nodes[i], text = node.nodeValue, m, last = 0, frag = null;
      // Text already in NFC is searched as it is; other text in NFC, each match marked on the characters it came from.
      var map = text.normalize("NFC") === text ? null : nfcMap(text), hay = map === null ? text : map.text;
      rx.lastIndex = 0;
      while ((m = rx.exec(hay)) !== null) {
        if (m[0].length === 0) { rx.lastIndex++; continue; }
        var s = m.index, e = s + m[0].length;
        if (map !== null) { s = map.from[s]; e = map.to[e - 1]; if (s < last) continue; }
        if (frag === null) frag = document.createDocumentFragment();
        frag.appendChild(document.createTextNode(text.slice(last, s)));
        var mk = el("mark", null, text.slice(s, e));
        frag.appendChild(mk);
        list.push(mk);
        last = e;
      }
      if (frag !== null) {
        frag.appendChild(document.createTextNode(text.slice(last)));
        node.parentNode.replaceChild(frag, node);
      }
    }
  }
  /** How many times 'rx' matches in the text of 'v' (as search counts an entry's). */
  function countIn(v) {
    return countAll(textsOf(v));
  }
  function search(q, keep) {
    pull();
    clearMarks();
    var was = current;
    hits = []; hitSet = null; total = 0; current = -1; rx = null;
    if (q === "") { countEl.textContent = ""; return; }
    // A query is at most 1,000 characters (the box's maxlength; a longer one set from script is cut): a pasted
    // page-long text made a RegExp too large to compile, an uncaught error (tester20 F11).
    q = q.slice(0, 1000).normalize("NFC");
    try { rx = new RegExp(q.replace(/[.*+?^$()|[\]\\{}]/g, "\\$&"), "gi"); } catch (e) { rx = null; countEl.textContent = "query too long"; return; }
    hitSet = {};
    for (var i = 0; i < entries.length; i++) {
      var c = countAll(textOf(i));
      if (c > 0) { hits.push({ i: i, n: c, start: total }); hitSet[i] = true; total += c; }
    }
    for (var j = 0; j < hits.length; j++) {
      var t = shells[hits[j].i];
      if (t && !t.classList.contains("pending")) markIn(t);
    }
    if (total === 0) { countEl.textContent = "no match" + (state.done ? "" : " yet"); return; }
    if (keep && was >= 0) { current = Math.min(was, total - 1) - 1; go(1); } else go(1);
  }
  function hitAt(k) {
    var lo = 0, hi = hits.length - 1;
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (hits[mid].start <= k) lo = mid; else hi = mid - 1; }
    return hits[lo];
  }
  function reveal(node) {
    for (var p = node.parentElement; p && p !== root; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true;
  }
  var currentMark = null;
  function go(d) {
    if (total === 0) return;
    if (currentMark) currentMark.classList.remove("current");
    current = (current + d + total) % total;
    var h = hitAt(current);
    var t = shellAt(h.i);
    hydrate(t);
    markIn(t);
    // The match's place: in a turn, the block that holds it (its group filled in), counted as search counts the turn
    // (its role, then its blocks in order); else the entry.
    var k = current - h.start, box = t, e = entries[h.i];
    if (e.type === "turn" && t._blocks) {
      // Counted once per search and entry: [its role's matches, then each block's].
      if (!h.parts) { h.parts = [countIn(e.role)]; for (var j = 0; j < e.blocks.length; j++) h.parts.push(countIn(e.blocks[j])); }
      for (var b = 0; b < h.parts.length; b++) {
        if (k < h.parts[b]) { box = b === 0 ? t.firstChild : blockAt(t, b - 1); break; }
        k -= h.parts[b];
      }
    }
    if (box === t) k = current - h.start;
    var ms = box === t ? t._marks : box.getElementsByTagName("mark");
    var m = ms.length > 0 ? ms[Math.min(k, ms.length - 1)] : null;
    currentMark = m;
    if (m) { m.classList.add("current"); reveal(m); m.scrollIntoView({ block: "center" }); }
    else { reveal(t); t.scrollIntoView({ block: "start" }); }
    countEl.textContent = (current + 1) + " of " + total + (state.done ? "" : "+");
  }
  findBox.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(runSearch, 150);
  });
  var lastQuery = "";
  function runSearch() { clearTimeout(timer); timer = 0; lastQuery = findBox.value; search(lastQuery, false); }
  findBox.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") {
      ev.preventDefault();
      if (findBox.value !== lastQuery) runSearch(); else go(ev.shiftKey ? -1 : 1);
    } else if (ev.key === "Escape") {
      findBox.value = ""; runSearch(); findBox.blur();
    }
  });
  document.getElementById("next").addEventListener("click", function () { go(1); });
  document.getElementById("prev").addEventListener("click", function () { go(-1); });

  // ---- keyboard navigation between the session's turns (j / k, arrows; / finds; n / N next / previous match)
  var at = -1;
  function move(d) {
    var i = at, t = null;
    for (;;) {
      i += d;
      if (i < 0 || i >= state.total) return;
      t = shellAt(i);
      if (t === null) return;
      if (t.classList.contains("turn")) break;
    }
    if (at >= 0) shells[at].classList.remove("current");
    at = i;
    hydrate(t);
    reveal(t);
    t.classList.add("current");
    t.focus({ preventScroll: true });
    t.scrollIntoView({ block: "start" });
    posEl.textContent = "turn " + t._n + " of " + data.header.counts.turns;
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
