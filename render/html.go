package render

import (
	"bytes"
	"encoding/json"
	"io"
)

// HTML writes the plan as one self-contained page: the SVG picture inline,
// the workers' details as embedded JSON, and a small script that shows a
// worker's rank, node, devices, CUDA_VISIBLE_DEVICES and environment when
// the pointer is over a cell. Nothing is fetched from anywhere.
func HTML(w io.Writer, in *Input, opt Options) error {
	pic, err := build(in, opt)
	if err != nil {
		return err
	}
	type cellData struct {
		Title   string `json:"title"`
		Workers []int  `json:"workers"`
	}
	data := struct {
		Title      string     `json:"title"`
		EnvOmitted bool       `json:"env_omitted"`
		Workers    []worker   `json:"workers"`
		Cells      []cellData `json:"cells"`
	}{Title: pic.title, EnvOmitted: pic.envOmitted, Workers: pic.workers}
	if pic.envOmitted {
		for i := range data.Workers {
			data.Workers[i].Env = nil
		}
	}
	for ri := range pic.rows {
		rw := &pic.rows[ri]
		for k := range rw.cells {
			c := &rw.cells[k]
			cd := cellData{Title: rw.lines[0] + " · " + c.label + " · " + rw.lines[1], Workers: []int{}}
			for _, e := range c.entries {
				cd.Workers = append(cd.Workers, e.workers...)
			}
			data.Cells = append(data.Cells, cd)
		}
	}
	// json.Marshal escapes <, > and &, so the data cannot end the script.
	js, err := json.Marshal(data)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + esc(pic.title) + " · rlsolve plan</title>\n")
	b.WriteString("<style>\n" + pageCSS + "</style>\n</head>\n<body>\n<main>\n<div id=\"pic\">\n")
	pic.svg(&b, false)
	b.WriteString("</div>\n<p class=\"hint\">Point at a cell or a line to see its workers: rank, node, devices, CUDA_VISIBLE_DEVICES and environment. Click to pin the details, Esc to close them. One worker's variables as shell lines: <code>rlsolve plan FILE --output env --component C --rank R</code>.</p>\n</main>\n")
	b.WriteString("<div id=\"tip\" role=\"tooltip\" hidden></div>\n")
	b.WriteString("<script type=\"application/json\" id=\"plan-data\">")
	b.Write(js)
	b.WriteString("</script>\n<script>\n" + pageJS + "</script>\n</body>\n</html>\n")
	_, err = w.Write(b.Bytes())
	return err
}

const pageCSS = `body { margin: 0; background: #ffffff; color: #1f2328; font: 13px/1.4 system-ui, sans-serif; }
main { padding: 8px; }
#pic svg { display: block; max-width: none; }
.hint { margin: 4px 16px 16px; color: #59636e; }
.cell, .span { cursor: pointer; }
.cell:hover .frame, .cell.on .frame { stroke: #0969da; stroke-width: 3; }
.span:hover line, .span.on line { stroke-width: 4; }
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
`

// pageJS builds the hover panel with textContent only: values from the
// config never become markup.
const pageJS = `(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("plan-data").textContent);
  var tip = document.getElementById("tip");
  var pinned = null, current = null;
  var ENV_SHOWN = 4;

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
  function fill(title, ids) {
    tip.textContent = "";
    tip.appendChild(el("div", "head", title));
    if (ids.length === 0) tip.appendChild(el("div", "note", "free: no worker here"));
    ids.forEach(function (id, n) {
      var w = data.workers[id];
      var box = el("div", "worker");
      box.appendChild(el("div", "name", w.component + " rank " + w.rank));
      box.appendChild(el("div", "vis", vis(w)));
      var where = "node " + w.node + (w.host ? " (" + w.host + ")" : "") + " · group " + w.node_group +
        " · " + w.devices + " · local " + w.local + " · " + w.accelerator_type;
      box.appendChild(el("div", "where", where));
      if (w.python) box.appendChild(el("div", "where", "python " + w.python));
      if (w.env && n < ENV_SHOWN) {
        var keys = Object.keys(w.env).sort();
        box.appendChild(el("pre", "env", keys.map(function (k) { return k + "=" + w.env[k]; }).join("\n")));
      }
      tip.appendChild(box);
    });
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
  document.addEventListener("mouseover", function (e) {
    if (pinned) return;
    var t = target(e.target);
    if (t) { if (t !== current) open(t); move(e.clientX, e.clientY); } else close();
  });
  document.addEventListener("mousemove", function (e) {
    if (!pinned && current) move(e.clientX, e.clientY);
  });
  document.addEventListener("click", function (e) {
    var t = target(e.target);
    if (t && pinned !== t) { open(t); pinned = t; move(e.clientX, e.clientY); } else if (!tip.contains(e.target)) close();
  });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") close(); });

  // #selftest: pin the first occupied cell (the browser test checks the
  // details it shows).
  if (location.hash === "#selftest") {
    var cells = document.querySelectorAll("[data-cell]");
    for (var i = 0; i < cells.length; i++) {
      if (data.cells[+cells[i].getAttribute("data-cell")].workers.length > 0) {
        open(cells[i]);
        pinned = cells[i];
        var r = cells[i].getBoundingClientRect();
        move(r.right, r.top);
        document.body.setAttribute("data-selftest", tip.textContent.indexOf(data.workers[0].visible_key) >= 0 ? "ok" : "no-details");
        break;
      }
    }
  }
  document.body.setAttribute("data-ready", "1");
})();
`
