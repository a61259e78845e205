// veil serve, Results page: the lattice's least generalized solutions as buttons by height;
// a click shows that node's figures (GET /results/node?levels=...). Built with the DOM, never innerHTML.
"use strict";
(function () {
  const box = document.getElementById("frontier");
  const panel = document.getElementById("node");
  if (!box || !panel) return;
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
  const number = v => v === null || v === undefined ? "—" : (typeof v === "number" && !Number.isInteger(v) ? v.toPrecision(4) : String(v));

  function row(table, label, value, key) {
    const tr = el("tr"); if (key) tr.dataset.figure = key;
    tr.append(el("th", label), el("td", value, "num")); table.append(tr);
  }

  async function show(levels, button) {
    box.querySelectorAll("button.node").forEach(b => b.classList.toggle("selected", b === button));
    panel.classList.remove("hidden");
    panel.replaceChildren(el("p", "Judging the node…", "muted"));
    const f = await veilFetch(`/results/node?levels=${encodeURIComponent(levels)}`);
    if (f.error) { panel.replaceChildren(el("p", f.error, "error")); return; }
    const table = el("table"); table.id = "node-figures";
    panel.replaceChildren(el("h3", `Node ${levels}${f.chosen ? " (the chosen node)" : ""}`), table);
    row(table, "levels", Object.entries(f.levels).map(([q, l]) => `${q}=${l}`).join(", "), "levels");
    row(table, "meets every model within the limit", f.satisfied ? "yes" : "no", "satisfied");
    row(table, "records to suppress", `${f.suppressed} (limit ${f.suppression_limit})`, "suppressed");
    row(table, "groups (equivalence classes)", number(f.classes), "classes");
    row(table, "smallest group (k)", number(f.k), "k");
    row(table, `${f.metric} (the metric optimised)`, f.satisfied ? number(f.loss) : "not a solution", "loss");
    f.violations.forEach(v => row(table, `records violating ${v.k}-anonymity`, String(v.records), `violating-${v.k}`));
    if (f.satisfied && !f.chosen) {
      const use = el("button", "Use these levels", "small"); use.type = "button"; use.id = "use-levels";
      use.title = "Hold each quasi-identifier at this node's level in the configuration, then go to Run";
      use.addEventListener("click", async () => {
        const body = new URLSearchParams({levels});
        const answer = await veilFetch("/results/levels", {method: "POST", body});
        if (answer.error) { panel.append(el("p", answer.error, "error")); return; }
        location.assign(answer.next);
      });
      panel.append(el("p", "To release this node instead: ", "muted"), use);
    }
  }

  // any node: one level per quasi-identifier, from 0 to its hierarchy's height
  function picker(lattice) {
    const form = el("form"); form.id = "node-picker";
    form.append(el("span", "Any node: ", "muted"));
    const chosen = lattice.chosen.split(",");
    const selects = lattice.quasi_identifiers.map((q, i) => {
      const label = el("label", `${q} `, "choice");
      const select = el("select"); select.name = q; select.dataset.index = i;
      for (let level = 0; level <= lattice.maxima[i]; level++) {
        const option = el("option", String(level)); option.value = String(level);
        if (String(level) === chosen[i]) option.selected = true;
        select.append(option);
      }
      label.append(select); form.append(label);
      return select;
    });
    const go = el("button", "Show its figures", "secondary"); go.type = "submit"; go.id = "show-node";
    form.append(go);
    form.addEventListener("submit", e => { e.preventDefault(); show(selects.map(s => s.value).join(","), null); });
    return form;
  }

  async function load() {
    const lattice = await veilFetch("/results/lattice");
    if (lattice.error) { box.replaceChildren(el("p", lattice.error, "muted")); return; }
    const c = lattice.counts;
    const intro = el("p", `${lattice.nodes_total} nodes: ${c.satisfying} least generalized solutions, ${c.pruned} generalizations of them, ${c.failing} failing.`, "muted");
    box.replaceChildren(intro);
    let chosenShown = false;
    for (const layer of lattice.layers) {
      const line = el("div", undefined, "layer"); line.dataset.height = layer.height;
      line.append(el("span", `height ${layer.height}`, "muted layer-label"));
      for (const levels of layer.nodes) {
        const b = el("button", levels, "node secondary"); b.type = "button"; b.dataset.levels = levels;
        if (levels === lattice.chosen) { b.classList.add("chosen"); b.title = "the chosen node"; chosenShown = true; }
        b.addEventListener("click", () => show(levels, b));
        line.append(b);
      }
      box.append(line);
    }
    box.append(picker(lattice));
    if (!chosenShown) {
      const b = el("button", `${lattice.chosen} (chosen)`, "node secondary chosen"); b.type = "button"; b.dataset.levels = lattice.chosen;
      b.addEventListener("click", () => show(lattice.chosen, b));
      box.append(b);
    }
  }
  load();
})();
