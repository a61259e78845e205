// The Data page: a column's most frequent values, fetched only when the steward clicks "show values".
"use strict";
(function () {
  async function toggle(button) {
    const row = button.closest("tr");
    const open = row.nextElementSibling;
    if (open && open.classList.contains("values")) { open.remove(); button.textContent = "show values"; return; }
    const name = button.dataset.values;
    const answer = await veilFetch("/column/" + encodeURIComponent(name) + "/values");
    const shown = document.createElement("tr");
    shown.className = "values";
    const cell = document.createElement("td");
    cell.colSpan = row.children.length;
    if (answer.error) {
      cell.className = "error"; cell.textContent = answer.error;
    } else {
      const list = document.createElement("ul");
      list.className = "value-list";
      answer.values.forEach(v => {
        const item = document.createElement("li");
        item.textContent = (v.value === "" ? "(blank)" : v.value) + " · " + v.count.toLocaleString();
        list.appendChild(item);
      });
      cell.appendChild(list);
      if (answer.more > 0) {
        const more = document.createElement("p");
        more.className = "muted";
        more.textContent = "and " + answer.more.toLocaleString() + " other value(s)";
        cell.appendChild(more);
      }
    }
    shown.appendChild(cell);
    row.after(shown);
    button.textContent = "hide values";
  }
  document.querySelectorAll("[data-values]").forEach(b => b.addEventListener("click", () => toggle(b)));
})();
