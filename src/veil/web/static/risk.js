// veil serve: wait for a running job (Risk, Synthesize, Evaluate pages). An element with
// data-job-status="URL" is polled; its phase and bar follow the job; the page reloads when it ends.
"use strict";
(function () {
  const box = document.querySelector("[data-job-status]");
  if (!box) return;
  const phase = box.querySelector("[data-job-phase]");
  const bar = box.querySelector("[data-job-bar]");
  async function poll() {
    const job = await window.veilFetch(box.dataset.jobStatus);
    if (!job || job.status !== "running") { window.location.reload(); return; }
    if (phase) phase.textContent = job.phase + (job.total ? ` (${job.done} of ${job.total})` : "");
    if (bar && job.total) bar.style.width = `${Math.round(100 * job.done / job.total)}%`;
    window.setTimeout(poll, 500);
  }
  window.setTimeout(poll, 300);
})();
