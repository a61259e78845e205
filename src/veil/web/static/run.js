// veil serve, Run page: poll the running job, show its phase and counts, go to the results when it is done.
"use strict";
(function () {
  const box = document.getElementById("job");
  if (!box) return;
  const show = (id, on) => document.getElementById(id)?.classList.toggle("hidden", !on);
  const text = (id, value) => { const e = document.getElementById(id); if (e) e.textContent = value ?? ""; };
  async function poll() {
    const job = await veilFetch("/run/status");
    if (!job || job.status === "none") return;
    box.dataset.status = job.status;
    show("job", true);
    text("job-name", job.name);
    text("job-status", job.status);
    const counts = job.total ? ` ${job.done ?? 0} of ${job.total}` : "";
    text("job-phase", `${job.phase}${counts} (${job.seconds} s)`);
    const bar = document.getElementById("job-bar");
    if (bar) bar.style.width = job.status === "done" ? "100%" : job.total ? `${Math.round(100 * (job.done || 0) / job.total)}%` : "15%";
    document.getElementById("cancel").disabled = job.status !== "running";
    document.getElementById("run").disabled = job.status === "running";
    if (job.error) { text("job-error", `error: ${job.error}`); show("job-error", true); }
    if (job.status === "running") { setTimeout(poll, 400); return; }
    if (job.status === "done" && job.name === "anonymize") { show("see-results", true); window.location.assign("/results"); }
  }
  if (box.dataset.status === "running" || new URLSearchParams(location.search).has("started")) poll();
})();
