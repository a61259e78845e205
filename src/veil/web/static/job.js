// The job panel (templates/job.html.j2): poll GET /job while a job runs, show its phase, count,
// seconds and a progress bar; Cancel posts /job/cancel. When the job is done the page goes to the
// job's `then` page (or reloads); a failed or cancelled job shows its one line in place.
"use strict";
(function () {
  const panel = document.getElementById("job-progress");
  if (!panel) return;
  const $ = id => document.getElementById(id);
  let timer = null;

  function show(job) {
    panel.dataset.status = job.status;
    if (job.status === "none") { panel.hidden = true; return; }
    panel.hidden = false;
    $("job-name").textContent = job.name;
    $("job-status").textContent = job.cancelling && job.status === "running" ? "cancelling" : job.status;
    $("job-phase").textContent = job.phase_text || "";  // the server's words (veil.web._jobs.PHASE_TEXT)
    const counted = typeof job.total === "number" && job.total > 0 && typeof job.done === "number";
    $("job-count").textContent = counted ? `${job.done.toLocaleString()} of ${job.total.toLocaleString()}` : "";
    $("job-seconds").textContent = job.seconds == null ? "" : job.seconds.toFixed(1);
    const bar = $("job-bar");
    if (counted) { bar.max = job.total; bar.value = Math.min(job.done, job.total); } else { bar.removeAttribute("value"); }
    $("job-cancel").hidden = job.status !== "running";
    $("job-cancel").disabled = !!job.cancelling;
    const message = $("job-message");
    message.hidden = !(job.status === "failed" || job.status === "cancelled");
    message.className = job.status === "failed" ? "error" : "muted";
    message.textContent = job.status === "failed" ? `error: ${job.error}`
      : job.status === "cancelled" ? "Cancelled: nothing was written." : "";
  }

  async function poll() {
    const job = await veilFetch("/job");
    if (job.error && !job.status) { stop(); return; }  // the session ended: keep what is shown
    show(job);
    if (job.status !== "running") {
      stop();
      if (job.status === "done" && panel.dataset.watching === "yes") {
        if (job.then) { location.assign(job.then); } else { location.reload(); }
      }
    }
  }

  function stop() { if (timer !== null) { clearInterval(timer); timer = null; } }

  // start polling (a page that starts a job with veilFetch calls veilJob.watch() afterwards)
  function watch() {
    panel.dataset.watching = "yes";
    stop();
    poll();
    timer = setInterval(poll, 500);
  }

  $("job-cancel-form").addEventListener("submit", async e => {
    e.preventDefault();
    $("job-cancel").disabled = true;
    show(await veilFetch("/job/cancel", {method: "POST"}));
  });

  window.veilJob = {watch, show};
  if (panel.dataset.status === "running") watch();
})();
