// The Hierarchies page: the live preview of each quasi-identifier's builder (debounced), the level
// each one is previewed at, and the download link of the current choice.
"use strict";
(function () {
  const sections = Array.from(document.querySelectorAll("section.hierarchy"));
  const timers = new Map();
  const k = parseInt(document.getElementById("hierarchies")?.dataset.k || "5", 10);

  function levels() {
    const out = {};
    sections.forEach(s => { out[s.dataset.qi] = parseInt(s.dataset.level || "0", 10); });
    return out;
  }

  function choice(section) {
    return {builder: section.querySelector(".builder-select").value,
            params: section.querySelector(".params").value,
            file: section.querySelector(".file-select").value};
  }

  function showFields(section) {
    const select = section.querySelector(".builder-select");
    const builder = select.value;
    const option = select.selectedOptions[0];
    const takesFile = builder === "file" || builder === "taxonomy";
    section.querySelector(".file-field").classList.toggle("hidden", !takesFile);
    section.querySelector(".params-field").classList.toggle("hidden", !option.dataset.help);
    section.querySelector(".params-help").textContent = option.dataset.help || "";
    const c = choice(section);
    const link = section.querySelector("a.download");
    link.href = "/hierarchies/" + encodeURIComponent(section.dataset.qi) + ".csv?" + new URLSearchParams(c);
  }

  function cell(row, text, cls) {
    const td = document.createElement("td");
    if (cls) td.className = cls;
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function render(section, answer) {
    const body = section.querySelector("table.preview tbody");
    body.replaceChildren();
    section.dataset.level = String(answer.chosen);
    section.querySelector(".source").textContent = "this choice: " + answer.source;
    const saved = section.querySelector(".saved-entry").textContent;
    const unsaved = (answer.entry.spec || answer.entry.file) !== saved;
    section.querySelector(".unsaved").classList.toggle("hidden", !unsaved);
    answer.levels.forEach(l => {
      const row = document.createElement("tr");
      row.dataset.level = String(l.level);
      const first = cell(row, "");
      const radio = document.createElement("input");
      radio.type = "radio"; radio.name = "level-" + section.dataset.qi; radio.value = String(l.level);
      radio.checked = l.level === answer.chosen;
      radio.title = "preview the other quasi-identifiers with " + section.dataset.qi + " at this level";
      radio.addEventListener("change", () => { section.dataset.level = radio.value; refreshOthers(section); });
      const label = document.createElement("label");
      label.append(radio, " " + l.level);
      first.appendChild(label);
      const labels = cell(row, "", "labels");
      if (l.labels === null) {
        const button = document.createElement("button");
        button.type = "button"; button.className = "secondary small"; button.textContent = "show values";
        button.addEventListener("click", () => preview(section, true));
        labels.appendChild(button);
      } else {
        labels.textContent = l.labels.join(", ") + (l.groups > l.labels.length ? ", …" : "");
      }
      cell(row, l.groups.toLocaleString(), "num groups");
      cell(row, l.smallest.toLocaleString(), "num smallest");
      cell(row, l.classes.toLocaleString(), "num classes");
      cell(row, l.smallest_class.toLocaleString(), "num smallest-class" + (l.smallest_class < k ? " bad" : " ok"));
      body.appendChild(row);
    });
  }

  async function preview(section, showValues) {
    const error = section.querySelector(".preview-error");
    const body = JSON.stringify(Object.assign(choice(section), {levels: levels(), show_values: !!showValues}));
    const answer = await veilFetch("/hierarchies/" + encodeURIComponent(section.dataset.qi) + "/preview",
                                   {method: "POST", body, headers: {"Content-Type": "application/json"}});
    if (answer.error) {
      error.textContent = answer.error; error.classList.remove("hidden");
      section.querySelector("table.preview tbody").replaceChildren();
      section.classList.add("failed");
      return;
    }
    error.classList.add("hidden");
    section.classList.remove("failed");
    render(section, answer);
    section.classList.add("previewed");
  }

  function schedule(section, wait) {
    clearTimeout(timers.get(section));
    timers.set(section, setTimeout(() => preview(section), wait === undefined ? 350 : wait));
  }

  function refreshOthers(changed) {
    sections.filter(s => s !== changed).forEach(s => schedule(s));
  }

  sections.forEach(section => {
    const select = section.querySelector(".builder-select");
    select.addEventListener("change", () => {
      const params = section.querySelector(".params");
      params.value = select.selectedOptions[0].dataset.default || "";
      showFields(section); schedule(section, 0);
    });
    section.querySelector(".params").addEventListener("input", () => { showFields(section); schedule(section); });
    section.querySelector(".file-select").addEventListener("change", () => { showFields(section); schedule(section, 0); });
    showFields(section);
  });
  (async () => { for (const s of sections) { await preview(s); } })();
})();
