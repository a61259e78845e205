// The Roles page: an identifier's action applies to identifiers only, "I checked: publish it" to a
// column published as it is (a disabled control is not sent), and the last column ("the release")
// follows the choices as they change: the server's release policy answers (POST /roles/preview).
"use strict";
(function () {
  const form = document.getElementById("roles-form");
  if (!form) return;
  const asIs = (form.dataset.asIs || "").split(",");
  let timer = null;
  let asked = 0;

  function sync(row) {
    const role = row.querySelector("select[data-role-for]").value;
    row.querySelector("select[data-action-for]").disabled = role !== "identifier";
    const allow = row.querySelector("input[data-allow-for]");
    if (allow) allow.disabled = !asIs.includes(role);
  }

  function show(row, p) {
    const cell = row.querySelector("td.treatment");
    cell.className = "treatment" + (p ? " treatment-" + p.treatment : "");
    cell.dataset.treatment = p ? p.treatment : "";
    cell.querySelector(".shown").textContent = p ? p.shown : "?";
    const refused = !!(p && p.refused);
    cell.querySelector(".refused").classList.toggle("hidden", !refused);
    if (refused) {  // a column the scan flags: offer the override
      row.querySelectorAll(".allow, .allow-evidence").forEach(e => e.classList.remove("hidden"));
    }
  }

  async function refresh() {
    const mine = ++asked;
    const answer = await veilFetch("/roles/preview", {method: "POST", body: new FormData(form)});
    if (mine !== asked) return;  // a later change was sent meanwhile
    const error = document.getElementById("policy-error");
    const message = answer.policy_error || (answer.policy ? "" : answer.error || "");
    error.textContent = message;
    error.classList.toggle("hidden", !message);
    form.querySelectorAll("tr[data-column]").forEach(row => show(row, (answer.policy || {})[row.dataset.column]));
    form.dataset.previewed = String(mine);
  }

  form.querySelectorAll("tr[data-column]").forEach(row => {
    sync(row);
    row.querySelectorAll("select, input").forEach(control => control.addEventListener("change", () => {
      sync(row);
      clearTimeout(timer);
      timer = setTimeout(refresh, 150);
    }));
  });
})();
