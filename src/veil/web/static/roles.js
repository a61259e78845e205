// The Roles page: an identifier's action applies to identifiers only (a disabled select is not sent: drop).
"use strict";
(function () {
  document.querySelectorAll("select[data-role-for]").forEach(role => {
    const row = role.closest("tr");
    const action = row.querySelector("select[data-action-for]");
    const sync = () => { action.disabled = role.value !== "identifier"; };
    role.addEventListener("change", sync);
    sync();
  });
})();
