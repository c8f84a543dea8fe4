// The per-topic view of a trec-toolkit report (toolkit/reports/topic_view.py embeds it and its data).
// Every value from the data goes into the page through textContent, never as HTML; nothing is fetched.
(function () {
  "use strict";
  var node = document.getElementById("tv-data");
  if (!node) return;
  var data = JSON.parse(node.textContent);
  var PAGE = 200;
  function $(id) { return document.getElementById(id); }
  var cand = $("tv-cand"), bucket = $("tv-bucket"), klass = $("tv-class"), search = $("tv-search");
  var list = $("tv-list"), more = $("tv-more"), detail = $("tv-detail"), count = $("tv-count");
  var matches = [], drawn = 0, current = -1, lines = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function option(select, value, label) {
    var o = el("option", null, label);
    o.value = value;
    select.appendChild(o);
  }
  function fixed(v) { return v === null || v === undefined ? "–" : v.toFixed(4); }
  function signed(v) {
    if (v === null || v === undefined) return "–";
    var t = v.toFixed(4);
    return /^-0\.0+$/.test(t) ? "+" + t.slice(1) : v >= 0 ? "+" + t : t;
  }
  function rank(r) { return r === null || r === undefined ? "–" : String(r); }

  data.runs.slice(1).forEach(function (r, i) { option(cand, String(i), r + " vs " + data.runs[0]); });
  if (data.runs.length < 3) cand.parentNode.hidden = true;
  option(bucket, "", "All");
  option(bucket, "changed", "Outcome changed");
  Object.keys(data.buckets).forEach(function (k) { option(bucket, k, data.buckets[k]); });
  option(klass, "", "All");
  data.classes.forEach(function (c) { option(klass, c, c); });
  if (!data.classes.length) klass.parentNode.hidden = true;

  // What the search box looks in: the topic id, the query and the doc ids of its lists (built on first use).
  var hay = null;
  function haystack() {
    if (hay) return hay;
    hay = data.topics.map(function (t) {
      var ids = [];
      t.l.forEach(function (l) { l.forEach(function (p) { ids.push(data.docs[p[0]][0]); }); });
      return (t.q + "\n" + t.t + "\n" + ids.join("\n")).toLowerCase();
    });
    return hay;
  }

  function ci() { return Number(cand.value || 0); }

  function filter() {
    var c = ci(), b = bucket.value, k = klass.value, s = search.value.trim().toLowerCase();
    matches = data.order[c].filter(function (i) {
      var t = data.topics[i], o = t.o[c];
      if (b === "changed" ? !o[5] : b && o[0] !== b) return false;
      if (k && t.c !== k) return false;
      return !s || haystack()[i].indexOf(s) >= 0;
    });
    list.textContent = "";
    drawn = 0;
    drawMore();
    count.textContent = matches.length + " of " + data.shown + " topics";
  }

  function item(i) {
    var t = data.topics[i], o = t.o[ci()];
    var li = el("li");
    var b = el("button", "tv-item tv-b-" + o[0]);
    b.type = "button";
    b.setAttribute("data-topic", String(i));
    b.appendChild(el("span", "tv-q", t.q));
    b.appendChild(el("span", "tv-bk", data.buckets[o[0]] || o[0]));
    b.appendChild(el("span", "tv-d", o[4] === null ? "" : "Δ " + signed(o[4])));
    b.appendChild(el("span", "tv-t", t.t));
    if (i === current) b.setAttribute("aria-current", "true");
    b.addEventListener("click", function () { open(i, true); });
    li.appendChild(b);
    return li;
  }

  function drawMore() {
    var end = Math.min(matches.length, drawn + PAGE), frag = document.createDocumentFragment();
    for (var n = drawn; n < end; n++) frag.appendChild(item(matches[n]));
    list.appendChild(frag);
    drawn = end;
    more.hidden = drawn >= matches.length;
    more.textContent = "Show more (" + (matches.length - drawn) + " left)";
  }

  function ranking(entries, other, side, isBase, otherName) {
    var where = {};
    other.forEach(function (p, j) { where[p[0]] = j + 1; });
    var first = -1;
    entries.forEach(function (p, j) { if (first < 0 && p[1] !== null && p[1] >= 1) first = j; });
    var ol = el("ol", "tv-rank-list");
    ol.setAttribute("aria-label", side);
    entries.forEach(function (p, j) {
      var doc = data.docs[p[0]], grade = p[1], there = where[p[0]];
      var li = el("li", "tv-doc" + (grade !== null && grade >= 1 ? " tv-rel" : "") + (j === first ? " tv-first" : ""));
      li.setAttribute("data-doc", String(p[0]));
      li.appendChild(el("span", "tv-r", String(j + 1)));
      var g = el("span", grade === null ? "tv-g tv-unjudged" : "tv-g tv-g" + Math.max(0, Math.min(grade, 3)),
        grade === null ? "unjudged" : "grade " + grade);
      if (grade !== null && data.grades[String(grade)]) g.title = data.grades[String(grade)];
      li.appendChild(g);
      var body = el("div", "tv-db");
      var id = el("code", "tv-id", doc[0]);
      body.appendChild(id);
      if (j === first) body.appendChild(el("span", "tv-firstmark", "★ first relevant"));
      // the baseline's documents say where they went; the candidate's how they moved
      var mv = isBase ? (there === undefined ? "out" : "→" + there)
        : there === undefined ? "new" : there === j + 1 ? "=" : there > j + 1 ? "↑" + (there - j - 1) : "↓" + (j + 1 - there);
      var m = el("span", "tv-mv" + (there === undefined ? " tv-new" : there === j + 1 ? "" : " tv-moved"), mv);
      m.title = there === undefined ? "not in the other run's top " + data.depth : "rank " + there + " in " + otherName;
      body.appendChild(m);
      if (doc[1]) body.appendChild(el("div", "tv-title", doc[1]));
      if (doc[2]) body.appendChild(el("div", "tv-snip", doc[2]));
      if (doc[3]) body.appendChild(el("div", "tv-err", "not fetched: " + doc[3]));
      li.appendChild(body);
      ol.appendChild(li);
    });
    if (!entries.length) ol.appendChild(el("li", "tv-empty", "no results"));
    return ol;
  }

  var SVG = "http://www.w3.org/2000/svg";
  function drawLines() {
    if (!lines) return;
    var svg = lines.svg, left = lines.left, right = lines.right;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var height = Math.max(left.offsetHeight, right.offsetHeight), width = svg.clientWidth || 60;
    svg.setAttribute("height", String(height));
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    var top = svg.getBoundingClientRect().top, rows = {};
    Array.prototype.forEach.call(right.children, function (li) { rows[li.getAttribute("data-doc")] = li; });
    Array.prototype.forEach.call(left.children, function (li, i) {
      var other = rows[li.getAttribute("data-doc")];
      if (!other) return;
      var a = li.getBoundingClientRect(), b = other.getBoundingClientRect();
      var y1 = a.top + a.height / 2 - top, y2 = b.top + b.height / 2 - top;
      var j = Array.prototype.indexOf.call(right.children, other);
      var path = document.createElementNS(SVG, "path");
      path.setAttribute("d", "M0 " + y1 + " C" + width / 2 + " " + y1 + " " + width / 2 + " " + y2 + " " + width + " " + y2);
      path.setAttribute("class", j < i ? "tv-up" : j > i ? "tv-down" : "tv-same");
      svg.appendChild(path);
    });
  }

  function open(i, focus) {
    current = i;
    var c = ci(), t = data.topics[i], o = t.o[c];
    Array.prototype.forEach.call(list.querySelectorAll("[aria-current]"), function (b) { b.removeAttribute("aria-current"); });
    var button = list.querySelector('[data-topic="' + i + '"]');
    if (button) button.setAttribute("aria-current", "true");
    detail.textContent = "";
    detail.appendChild(el("h3", null, t.q));
    if (t.t) detail.appendChild(el("p", "tv-query", t.t));
    var meta = [data.buckets[o[0]] || o[0]];
    if (t.c) meta.push("class " + t.c);
    meta.push("first relevant: " + rank(o[1]) + " → " + rank(o[2]) + " (top " + data.depth + ")");
    o[3].forEach(function (change) { meta.push(change); });
    detail.appendChild(el("p", "tv-meta", meta.join(" · ")));

    var table = el("table", "tv-values"), head = el("tr");
    ["measure", data.runs[0], data.runs[c + 1], "Δ"].forEach(function (h, n) { head.appendChild(el("th", n ? null : "l", h)); });
    var thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var tbody = el("tbody");
    data.measures.forEach(function (m, n) {
      var a = t.v[0][n], b = t.v[c + 1][n], tr = el("tr", n === data.primary ? "tv-primary" : null);
      tr.appendChild(el("td", "l", n === data.primary ? m + " (primary)" : m));
      tr.appendChild(el("td", null, fixed(a)));
      tr.appendChild(el("td", null, fixed(b)));
      tr.appendChild(el("td", null, a === null || b === null ? "–" : signed(b - a)));
      tbody.appendChild(tr);
    });
    table.appendChild(tbody);
    detail.appendChild(table);

    var pair = el("div", "tv-pair");
    var left = ranking(t.l[0], t.l[c + 1], data.runs[0], true, data.runs[c + 1]);
    var right = ranking(t.l[c + 1], t.l[0], data.runs[c + 1], false, data.runs[0]);
    var lc = el("div", "tv-col"), rc = el("div", "tv-col");
    lc.appendChild(el("h4", null, data.runs[0] + " (baseline)"));
    lc.appendChild(left);
    rc.appendChild(el("h4", null, data.runs[c + 1]));
    rc.appendChild(right);
    var mid = el("div", "tv-mid"), svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("aria-hidden", "true");
    mid.appendChild(el("h4", null, "\u00a0"));
    mid.appendChild(svg);
    pair.appendChild(lc);
    pair.appendChild(mid);
    pair.appendChild(rc);
    detail.appendChild(pair);
    lines = { svg: svg, left: left, right: right };
    drawLines();
    try { history.replaceState(null, "", "#topic=" + encodeURIComponent(t.q)); } catch (e) { /* file: URL in some browsers */ }
    if (focus) detail.focus();
  }

  [cand, bucket, klass].forEach(function (s) { s.addEventListener("change", filter); });
  var pending = 0;
  search.addEventListener("input", function () { clearTimeout(pending); pending = setTimeout(filter, 120); });
  more.addEventListener("click", drawMore);
  window.addEventListener("resize", drawLines);

  list.addEventListener("keydown", function (e) {
    var li = e.target.parentNode;
    var next = e.key === "ArrowDown" ? li.nextElementSibling : e.key === "ArrowUp" ? li.previousElementSibling : null;
    if (e.key === "ArrowDown" && !next && !more.hidden) { drawMore(); next = li.nextElementSibling; }
    if (next) { next.firstChild.focus(); e.preventDefault(); }
  });
  detail.addEventListener("keydown", function (e) {
    if (e.key !== "Escape") return;
    var b = list.querySelector('[data-topic="' + current + '"]');
    (b || search).focus();
  });
  document.addEventListener("keydown", function (e) {
    var typing = /^(INPUT|SELECT|TEXTAREA)$/.test((e.target && e.target.tagName) || "");
    if (e.key === "/" && !typing) { search.focus(); e.preventDefault(); }
  });

  filter();
  var wanted = /^#topic=(.*)$/.exec(location.hash);
  if (wanted) {
    var q = "";
    try { q = decodeURIComponent(wanted[1]); } catch (e) { q = ""; }
    for (var n = 0; n < data.topics.length; n++) if (data.topics[n].q === q) { open(n, false); break; }
  }
})();
