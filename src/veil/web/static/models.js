// veil serve, Models page: the algorithm-options box is enabled only for an algorithm that takes options;
// a model only one algorithm achieves (data-released-by, e.g. dp through safepub) sets and locks that
// algorithm and a 100% suppression limit while it is ticked (the server sets them on save as well).
"use strict";
(function () {
  const algorithm = document.getElementById("algorithm");
  const options = document.getElementById("algorithm-options");
  const suppression = document.getElementById("suppression");
  if (!algorithm || !options) return;
  const sync = () => {
    const takes = algorithm.selectedOptions[0]?.dataset.options === "yes";
    options.disabled = !takes;
    options.placeholder = takes ? "e.g. {}" : "this algorithm takes no options";
  };
  const bound = () => {
    const ticked = [...document.querySelectorAll("input[data-released-by]")].find(box => box.checked);
    if (ticked) { algorithm.value = ticked.dataset.releasedBy; if (suppression) suppression.value = "100"; }
    [...algorithm.options].forEach(o => { o.disabled = !!ticked && o.value !== algorithm.value; });
    if (suppression) suppression.readOnly = !!ticked;
    sync();
  };
  algorithm.addEventListener("change", sync);
  document.querySelectorAll("input[data-released-by]").forEach(box => box.addEventListener("change", bound));
  bound();
})();
