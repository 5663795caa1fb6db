package render

import (
	"bytes"
	"fmt"
	"io"
)

// HTML writes the plan as one self-contained page: the picture inline,
// the workers' details as embedded JSON, and a small script that shows a
// worker's rank, node, devices, CUDA_VISIBLE_DEVICES and environment when
// the pointer is over a cell, expands a row of identical nodes into its
// nodes, and finds workers by component and rank. Nothing is fetched from
// anywhere.
func HTML(w io.Writer, in *Input, opt Options) error {
	pic, err := build(in, opt)
	if err != nil {
		return err
	}
	out := newPageWriter(w)
	b := &out.buf
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + esc(pic.title) + " · rlsolve plan</title>\n")
	b.WriteString("<style>\n" + pageCSS + "</style>\n</head>\n<body>\n<main>\n<div id=\"pic\">\n")
	pic.svgOpen(b, pic.width, pic.top)
	pic.header(b)
	b.WriteString("</svg>\n")
	b.WriteString(`<div id="find"><label>Find a worker <input id="q" type="search" placeholder="component and rank: actor 37, rollout 4-7" autocomplete="off" spellcheck="false"></label> <span id="count"></span><ol id="results"></ol></div>` + "\n")
	for ri := range pic.runs {
		pic.htmlRun(out, ri)
	}
	b.WriteString("</div>\n<p class=\"hint\">Point at a cell or a line to see its workers: rank, node, devices, CUDA_VISIBLE_DEVICES and environment. Click to pin the details, Esc to close them. A row of several nodes expands when its label is clicked. One worker's variables as shell lines: <code>rlsolve plan FILE --output env --component C --rank R</code>.</p>\n</main>\n")
	b.WriteString("<div id=\"tip\" role=\"tooltip\" hidden></div>\n")
	b.WriteString("<script type=\"application/json\" id=\"plan-data\">")
	if err := pic.pageData(out); err != nil {
		return err
	}
	b.WriteString("</script>\n<script>\n" + pageJS + "</script>\n</body>\n</html>\n")
	return out.close()
}

// htmlRun writes a run: its row, and for a collapsed run the rows of its
// nodes, hidden until the label is clicked.
func (pic *picture) htmlRun(out *pageWriter, ri int) {
	b := &out.buf
	r := &pic.runs[ri]
	fmt.Fprintf(b, `<div class="run" data-first="%d" data-last="%d">`+"\n", r.first, r.last)
	rw := pic.runRow(r, false)
	pic.htmlRow(b, &rw, ri)
	out.flush()
	if r.collapsed() && pic.expandable() {
		b.WriteString(`<div class="members" hidden>` + "\n")
		for n := r.first; n <= r.last; n++ {
			mr := pic.memberRow(r, n)
			pic.htmlRow(b, &mr, n-r.first)
			out.flush()
		}
		b.WriteString("</div>\n")
	}
	b.WriteString("</div>\n")
}

func (pic *picture) htmlRow(b *bytes.Buffer, rw *row, ri int) {
	pic.svgOpen(b, pic.width, rw.drawnHeight()+rowGap)
	pic.row(b, rw, ri, false)
	b.WriteString("</svg>\n")
}

const pageCSS = `body { margin: 0; background: #ffffff; color: #1f2328; font: 13px/1.4 system-ui, sans-serif; }
main { padding: 8px; }
#pic svg { display: block; max-width: none; }
.hint { margin: 4px 16px 16px; color: #59636e; }
.cell, .span, .ov-seg { cursor: pointer; }
.cell:hover .frame, .cell.on .frame { stroke: #0969da; stroke-width: 3; }
.cell.hit .frame { stroke: #bf3989; stroke-width: 4; }
.span:hover line, .span.on line { stroke-width: 4; }
.ov-seg:hover { stroke: #1f2328; stroke-width: 1.5; }
.row[data-nodes] .label { cursor: pointer; }
.row[data-nodes] .label:hover text { fill: #0969da; }
.members { border-left: 3px solid #8c959f; margin-left: 10px; }
#find { position: sticky; top: 0; z-index: 5; margin: 0 16px 8px; padding: 6px 8px; background: #ffffffee;
  border: 1px solid #d0d7de; border-radius: 6px; }
#find input { width: 24em; font: inherit; padding: 2px 6px; }
#count { color: #59636e; margin-left: 8px; }
#results { margin: 4px 0 0; padding-left: 24px; max-height: 9.5em; overflow: auto;
  font: 12px/1.35 "DejaVu Sans Mono", Menlo, Consolas, monospace; }
#results:empty { display: none; }
#results li { cursor: pointer; }
#results li:hover { color: #0969da; }
#tip { position: fixed; z-index: 10; max-width: 560px; max-height: 80vh; overflow: auto; padding: 8px 10px;
  background: #fffef7; border: 1px solid #8c959f; border-radius: 6px; box-shadow: 0 4px 14px rgba(0,0,0,.18);
  font: 12px/1.35 "DejaVu Sans Mono", Menlo, Consolas, monospace; }
#tip[hidden] { display: none; }
#tip .head { font-weight: bold; margin-bottom: 4px; }
#tip .worker { border-top: 1px solid #d0d7de; padding-top: 4px; margin-top: 4px; }
#tip .name { font-weight: bold; }
#tip .vis { color: #0a3069; }
#tip pre { margin: 2px 0 0; white-space: pre-wrap; color: #424a53; }
#tip .note { color: #59636e; font-style: italic; margin-top: 4px; }
#tip .mem { color: #0a3069; margin-bottom: 4px; }
`

// pageJS builds the hover panel and the search results with textContent
// only: values from the config never become markup.
const pageJS = `(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("plan-data").textContent);
  var tip = document.getElementById("tip");
  var pinned = null, current = null;
  var ENV_SHOWN = 4, MAX_RESULTS = 50, MAX_HITS = 5000;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function vis(w) {
    if (w.visible === null) return w.visible_key + " not set";
    return w.visible_key + "=" + (w.visible === "" ? '""' : w.visible);
  }
  function where(w) {
    return "node " + w.node + (w.host ? " (" + w.host + ")" : "") + " · group " + w.node_group +
      " · " + w.devices + " · local " + w.local + " · " + w.accelerator_type;
  }
  function fill(title, ids) {
    tip.textContent = "";
    tip.appendChild(el("div", "head", title));
    if (ids.length === 0) tip.appendChild(el("div", "note", "free: no worker here"));
    ids.slice(0, 64).forEach(function (id, n) {
      var w = data.workers[id];
      var box = el("div", "worker");
      box.appendChild(el("div", "name", w.component + " rank " + w.rank));
      box.appendChild(el("div", "vis", vis(w)));
      box.appendChild(el("div", "where", where(w)));
      if (w.python) box.appendChild(el("div", "where", "python " + w.python));
      if (w.env && n < ENV_SHOWN) {
        var keys = Object.keys(w.env).sort();
        box.appendChild(el("pre", "env", keys.map(function (k) { return k + "=" + w.env[k]; }).join("\n")));
      }
      tip.appendChild(box);
    });
    if (ids.length > 64) tip.appendChild(el("div", "note", (ids.length - 64) + " more worker(s) on this cell"));
    if (data.env_omitted) {
      tip.appendChild(el("div", "note", "environments left out of this page (a large plan): use --output env"));
    } else if (ids.length > ENV_SHOWN) {
      tip.appendChild(el("div", "note", "environment shown for the first " + ENV_SHOWN + " workers"));
    }
  }
  function target(node) {
    while (node && node !== document) {
      if (node.getAttribute && (node.hasAttribute("data-cell") || node.hasAttribute("data-worker"))) return node;
      node = node.parentNode;
    }
    return null;
  }
  function open(t) {
    if (t.hasAttribute("data-cell")) {
      var c = data.cells[+t.getAttribute("data-cell")];
      fill(c.title, c.workers);
      if (c.memory) tip.insertBefore(el("div", "mem", c.memory), tip.children[1] || null);
    } else {
      var id = +t.getAttribute("data-worker"), w = data.workers[id];
      fill(w.component + " rank " + w.rank + " holds " + w.devices, [id]);
    }
    if (current) current.classList.remove("on");
    current = t;
    t.classList.add("on");
    tip.hidden = false;
  }
  function close() {
    if (current) current.classList.remove("on");
    current = null;
    pinned = null;
    tip.hidden = true;
  }
  function move(x, y) {
    var r = tip.getBoundingClientRect(), vw = window.innerWidth, vh = window.innerHeight;
    var left = x + 16, top = y + 16;
    if (left + r.width > vw - 4) left = Math.max(4, x - r.width - 16);
    if (top + r.height > vh - 4) top = Math.max(4, vh - r.height - 4);
    tip.style.left = left + "px";
    tip.style.top = top + "px";
  }
  function pin(t) {
    open(t);
    pinned = t;
    var r = t.getBoundingClientRect();
    move(r.right, r.top);
  }

  // Rows of several nodes: the label expands them into their nodes.
  function runOf(node) {
    var runs = document.querySelectorAll(".run");
    for (var i = 0; i < runs.length; i++) {
      if (+runs[i].getAttribute("data-first") <= node && node <= +runs[i].getAttribute("data-last")) return runs[i];
    }
    return null;
  }
  function setOpen(run, on) {
    var m = run.querySelector(".members");
    if (!m) return;
    m.hidden = !on;
    run.classList.toggle("open", on);
  }
  // rowOf is the drawn row of a node: its own, or its run's when folded.
  function rowOf(node) {
    var run = runOf(node);
    if (!run) return null;
    var m = run.querySelector(".members");
    if (m && m.hidden) setOpen(run, true);
    return run.querySelector('.row[data-node="' + node + '"]:not([data-nodes])') || run.querySelector(".row");
  }

  // Search: words are component names (or their beginnings), numbers and
  // ranges a-b are ranks.
  var cellsOf = null, hits = [];
  function index() {
    if (cellsOf) return;
    cellsOf = {};
    data.cells.forEach(function (c, id) {
      c.workers.forEach(function (w) { (cellsOf[w] = cellsOf[w] || []).push(id); });
    });
  }
  function matches(q) {
    var words = [], ranks = [];
    q.toLowerCase().split(/[\s,]+/).forEach(function (t) {
      var m = /^(\d+)(?:-(\d+))?$/.exec(t);
      if (m) ranks.push([+m[1], m[2] === undefined ? +m[1] : +m[2]]);
      else if (t) words.push(t);
    });
    if (!words.length && !ranks.length) return [];
    var out = [];
    data.workers.forEach(function (w, id) {
      var name = w.component.toLowerCase();
      if (words.length && !words.some(function (t) { return name.indexOf(t) === 0; })) return;
      if (ranks.length && !ranks.some(function (r) { return r[0] <= w.rank && w.rank <= r[1]; })) return;
      out.push(id);
    });
    return out;
  }
  function cellEl(id) { return document.querySelector('[data-cell="' + id + '"]'); }
  function search(q) {
    hits.forEach(function (e) { e.classList.remove("hit"); });
    hits = [];
    var found = matches(q), list = document.getElementById("results");
    list.textContent = "";
    document.getElementById("count").textContent = q.trim() ? found.length + " worker(s)" : "";
    index();
    found.slice(0, MAX_HITS).forEach(function (id) {
      (cellsOf[id] || []).forEach(function (c) {
        var e = cellEl(c);
        if (e) { e.classList.add("hit"); hits.push(e); }
      });
    });
    found.slice(0, MAX_RESULTS).forEach(function (id) {
      var w = data.workers[id];
      var li = el("li", "", w.component + " rank " + w.rank + " · " + where(w));
      li.setAttribute("data-find", id);
      list.appendChild(li);
    });
    if (found.length > MAX_RESULTS) list.appendChild(el("li", "", "… " + (found.length - MAX_RESULTS) + " more: narrow the search"));
    return found;
  }
  // reveal shows a worker: its node's row (expanding a folded run), and
  // the details of its cell, pinned.
  function reveal(id) {
    index();
    var w = data.workers[id], row = rowOf(w.node);
    if (!row) return;
    var cells = cellsOf[id] || [], t = null;
    for (var i = 0; i < cells.length && !t; i++) {
      var e = cellEl(cells[i]);
      if (e && row.contains(e)) t = e;
    }
    row.scrollIntoView({block: "nearest"});
    if (t) pin(t);
  }
  function revealNode(node) {
    var row = rowOf(node);
    if (row) row.scrollIntoView({block: "nearest"});
  }
  var q = document.getElementById("q");
  q.addEventListener("input", function () { search(q.value); });
  q.addEventListener("keydown", function (e) {
    if (e.key !== "Enter") return;
    var found = search(q.value);
    if (found.length) reveal(found[0]);
  });

  document.addEventListener("mouseover", function (e) {
    if (pinned) return;
    var t = target(e.target);
    if (t) { if (t !== current) open(t); move(e.clientX, e.clientY); } else close();
  });
  document.addEventListener("mousemove", function (e) {
    if (!pinned && current) move(e.clientX, e.clientY);
  });
  document.addEventListener("click", function (e) {
    var f = e.target.closest ? e.target.closest("[data-find]") : null;
    if (f) { reveal(+f.getAttribute("data-find")); return; }
    var seg = e.target.closest ? e.target.closest(".ov-seg") : null;
    if (seg) { revealNode(+seg.getAttribute("data-node")); return; }
    var label = e.target.closest ? e.target.closest(".row[data-nodes] .label") : null;
    if (label) {
      var run = label.closest(".run");
      setOpen(run, !run.classList.contains("open"));
      return;
    }
    var t = target(e.target);
    if (t && pinned !== t) { open(t); pinned = t; move(e.clientX, e.clientY); } else if (!tip.contains(e.target)) close();
  });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") close(); });

  // #selftest: pin the first occupied cell (the browser test checks the
  // details it shows). #selftest=WORDS: expand and fold the first row of
  // several nodes, then search WORDS and reveal the first worker found;
  // the body records each step for the browser test.
  var hash = decodeURIComponent(location.hash);
  if (hash === "#selftest") {
    var cells = document.querySelectorAll("[data-cell]");
    for (var i = 0; i < cells.length; i++) {
      if (data.cells[+cells[i].getAttribute("data-cell")].workers.length > 0) {
        pin(cells[i]);
        document.body.setAttribute("data-selftest", tip.textContent.indexOf(data.workers[0].visible_key) >= 0 ? "ok" : "no-details");
        break;
      }
    }
  } else if (hash.indexOf("#selftest=") === 0) {
    var body = document.body, visible = function (run) {
      return run.querySelectorAll(".members:not([hidden]) .row").length;
    };
    body.setAttribute("data-overview", document.querySelectorAll(".overview .ov-line").length);
    var label = document.querySelector(".row[data-nodes] .label");
    if (label) {
      var run = label.closest(".run");
      label.dispatchEvent(new MouseEvent("click", {bubbles: true}));
      body.setAttribute("data-expanded", visible(run));
      label.dispatchEvent(new MouseEvent("click", {bubbles: true}));
      body.setAttribute("data-folded", visible(run));
    }
    q.value = hash.slice("#selftest=".length);
    q.dispatchEvent(new Event("input", {bubbles: true}));
    body.setAttribute("data-found", document.getElementById("count").textContent);
    var first = document.querySelector("[data-find]");
    if (first) first.dispatchEvent(new MouseEvent("click", {bubbles: true}));
  }
  document.body.setAttribute("data-ready", "1");
})();
`
