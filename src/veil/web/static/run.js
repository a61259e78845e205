// veil serve, Run page: after Run was pressed, follow the job (the job panel, static/job.js, goes to
// the results when it is done); the Run button waits while a job runs.
"use strict";
(function () {
  const panel = document.getElementById("job-progress");
  const run = document.getElementById("run");
  if (!panel || !run) return;
  const problem = run.dataset.problem === "yes";
  const sync = () => { run.disabled = problem || panel.dataset.status === "running"; };
  new MutationObserver(sync).observe(panel, {attributes: true, attributeFilter: ["data-status"]});
  sync();
  if (new URLSearchParams(location.search).has("started") && window.veilJob) window.veilJob.watch();
})();
