// veil serve: the little interaction the pages need (no framework, no build step, no network
// beyond this server). Every request a script sends carries the page's CSRF token.
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]')?.content || "";

  // fetch with the CSRF header; JSON answers are returned parsed, errors as {error}
  window.veilFetch = async function (url, options = {}) {
    const headers = Object.assign({"X-CSRF-Token": csrf, "Accept": "application/json"}, options.headers || {});
    const answer = await fetch(url, Object.assign({}, options, {headers, credentials: "same-origin"}));
    const type = answer.headers.get("content-type") || "";
    return type.includes("application/json") ? answer.json() : {error: await answer.text()};
  };

  // "Back" links on the error page (no inline script: the CSP forbids it)
  document.querySelectorAll("[data-back]").forEach(a => a.addEventListener("click", e => {
    e.preventDefault(); history.back();
  }));
})();
