// convo serve: the page. Every value from the archive is untrusted: it reaches the DOM
// only as text (textContent, text nodes) or as an encoded URL parameter, never as HTML.
"use strict";

const main = document.getElementById("main");

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return node;
}

function link(path, params, ...children) {
  return el("a", { href: path + "?" + new URLSearchParams(params).toString() }, ...children);
}

async function api(route, params) {
  const res = await fetch("/api/" + route + "?" + new URLSearchParams(params).toString());
  const body = await res.json();
  if (!res.ok) throw new Error(body.error + (body.hint ? "; " + body.hint : ""));
  return body;
}

function show(...nodes) {
  main.replaceChildren(...nodes);
}

function failed(err) {
  show(el("p", { class: "error", role: "alert" }, String(err.message || err)));
}

function when(ts) {
  return ts && !ts.startsWith("1970-01-01") ? ts.replace("T", " ").replace("Z", " UTC") : "";
}

function term(field, value) {
  return /[\s"()]/.test(value) ? field + ':"' + value.replace(/"/g, "") + '"' : field + ":" + value;
}

function speakerLink(name) {
  return name ? link("/person", { name }, el("span", { class: "speaker" }, name)) : el("span", { class: "speaker" }, "?");
}

// -- messages

function head(m) {
  const v = m.view || {};
  const parts = [];
  if (v.offset) parts.push(el("span", { class: "offset" }, v.offset));
  parts.push(speakerLink(m.metadata && m.metadata.speaker));
  const to = (m.metadata && (m.metadata.listeners || m.metadata.recipients)) || [];
  if (to.length && v.family !== "email") parts.push(" → " + to.join(", "));
  if (!v.offset && when(m.timestamp)) parts.push(" · " + when(m.timestamp));
  parts.push(" · ", link("/message", { id: m.id }, m.format || "message"));
  return el("div", { class: "head" }, ...parts);
}

function headers(m) {
  const dl = el("dl", { class: "headers" });
  for (const [k, v] of m.view.headers || []) dl.append(el("dt", {}, k), el("dd", {}, v));
  return dl;
}

function messageNode(m, focus) {
  const chunks = m.textChunks || m.text_chunks || [];
  const cls = ["msg", "d" + Math.min(8, m.depth || 0)];
  if (m.id === focus) cls.push("target");
  const node = el("article", { class: cls.join(" "), id: "m-" + encodeURIComponent(m.id || "") });
  node.dataset.id = m.id || "";
  if (m.view && m.view.family === "email") node.append(headers(m), el("div", { class: "head" }, link("/message", { id: m.id }, "link")));
  else node.append(head(m));
  if (m.subject && !(m.view && m.view.family === "email")) node.append(el("div", { class: "meta" }, m.subject));
  node.append(el("div", { class: "body" }, chunks.join("\n")));
  return node;
}

// -- pages

async function searchPage(params) {
  const q = params.get("q") || "";
  const mode = params.get("mode") || "keyword";
  document.getElementById("q").value = q;
  document.getElementById("mode").value = mode;
  if (!q.trim()) return home();
  show(el("p", { class: "meta" }, "Searching…"));
  const res = await api("search", { q, mode });
  const list = el("ol", { id: "hits", class: "hits" });
  for (const h of res.hits) {
    const snippet = el("div", { class: "snippet" });
    for (const [text, hit] of h.snippet) snippet.append(hit ? el("mark", {}, text) : document.createTextNode(text));
    const thread = h.thread || h.id;
    const item = el("li", { class: "hit" },
      el("div", { class: "head" }, speakerLink(h.metadata && h.metadata.speaker), ...[when(h.timestamp), h.format, h.subject].filter(Boolean).map((x) => " · " + x)),
      link("/thread", { id: thread, m: h.id }, snippet));
    item.querySelector("a[href^='/thread']").classList.add("open");
    item.dataset.id = h.id;
    list.append(item);
  }
  const note = res.hits.length ? res.hits.length + " best matches" : "No messages match.";
  show(el("p", { class: "meta", id: "count" }, note + (res.note ? " (" + res.note + ")" : "")), list);
}

async function threadPage(params) {
  const res = await api("thread", { id: params.get("id") || "" });
  const focus = params.get("m") || "";
  const first = res.messages[0];
  const transcript = res.messages.every((m) => m.view && m.view.family === "transcript");
  const list = el("section", { id: "thread", class: transcript ? "transcript" : "" });
  for (const m of res.messages) list.append(messageNode(m, focus));
  show(el("h1", {}, first.subject || "Thread"), el("p", { class: "meta" }, res.messages.length + " messages · ", link("/thread", { id: res.thread }, "link to this thread")), list);
  const target = focus && document.getElementById("m-" + encodeURIComponent(focus));
  if (target) target.scrollIntoView({ block: "center" });
}

async function messagePage(params) {
  const res = await api("message", { id: params.get("id") || "" });
  const m = res.message;
  const thread = m.thread || m.id;
  show(messageNode(m, m.id), el("p", {}, link("/thread", { id: thread, m: m.id }, "open its thread")), el("p", { class: "meta" }, "source: " + (m.source_id || "")));
}

function timeline(buckets) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  const w = 600, h = 100, peak = Math.max(1, ...buckets.map((b) => b.messages));
  svg.setAttribute("viewBox", "0 0 " + w + " " + h);
  svg.setAttribute("class", "timeline");
  svg.setAttribute("preserveAspectRatio", "none");
  const bw = w / Math.max(1, buckets.length);
  buckets.forEach((b, i) => {
    const r = document.createElementNS(ns, "rect");
    const bh = (h - 4) * b.messages / peak;
    r.setAttribute("x", String(i * bw));
    r.setAttribute("y", String(h - bh));
    r.setAttribute("width", String(Math.max(1, bw - 1)));
    r.setAttribute("height", String(bh));
    const t = document.createElementNS(ns, "title");
    t.textContent = b.start + ": " + b.messages;
    r.append(t);
    svg.append(r);
  });
  return svg;
}

async function personPage(params) {
  const name = params.get("name") || "";
  const p = await api("person", { name });
  const topics = el("ul", { id: "topics" });
  for (const t of p.topics) topics.append(el("li", {}, t.topic + " (" + t.messages + ")"));
  const formats = el("ul", {});
  for (const f of p.formats) formats.append(el("li", {}, f.name + ": " + f.messages));
  const aliases = el("ul", { id: "aliases" });
  for (const a of p.aliases) aliases.append(el("li", {}, link("/person", { name: a }, a)));
  show(
    el("h1", {}, p.name),
    el("p", { class: "meta" }, p.messages + " messages · " + when(p.first) + " – " + when(p.last) + " · ", link("/search", { q: term("from", p.name) }, "their messages")),
    el("h2", {}, "Activity per " + p.timeline.unit), timeline(p.timeline.buckets),
    el("h2", {}, "Top topics"), topics,
    el("h2", {}, "Also known as"), p.aliases.length ? aliases : el("p", { class: "meta" }, "no other names found"),
    el("h2", {}, "Formats"), formats,
  );
}

function home() {
  show(el("p", { class: "meta" }, "Type words to search; field terms filter: from:NAME to:NAME tag:TAG format:NAME date:2024-03..2024-04. Or pick a chip above."));
}

// -- chips

function addTerm(t) {
  const q = document.getElementById("q");
  q.value = (q.value.trim() + " " + t).trim();
  document.getElementById("search").requestSubmit();
}

function chipGroup(label, rows, field) {
  const nodes = [el("span", { class: "chip-label" }, label)];
  for (const r of rows.slice(0, 8)) {
    const b = el("button", { type: "button", class: "chip" }, r.name, el("span", { class: "n" }, r.messages));
    b.dataset.term = term(field, r.name);
    b.addEventListener("click", () => addTerm(b.dataset.term));
    nodes.push(b);
  }
  return nodes;
}

function dateChip() {
  const from = el("input", { type: "date", "aria-label": "from date" });
  const to = el("input", { type: "date", "aria-label": "to date" });
  const b = el("button", { type: "button", class: "chip" }, "dates");
  b.addEventListener("click", () => { if (from.value || to.value) addTerm("date:" + from.value + ".." + to.value); });
  return [el("span", { class: "chip-label" }, "date"), from, to, b];
}

async function chips() {
  const f = await api("facets", {});
  document.getElementById("chips").replaceChildren(
    ...chipGroup("person", f.speakers, "from"), ...chipGroup("tag", f.tags, "tag"),
    ...chipGroup("format", f.formats, "format"), ...dateChip());
  if (f.meaning) document.querySelector("#mode option[value=meaning]").disabled = false;
}

// -- start

const pages = { "/": searchPage, "/search": searchPage, "/thread": threadPage, "/message": messagePage, "/person": personPage };
const params = new URLSearchParams(location.search);
chips().catch(failed);
(pages[location.pathname] || home)(params).catch(failed);
