// veil serve, Models page: only the chosen algorithm's option fields are shown (and sent; the others are
// disabled), "takes no options" for an algorithm that declares none;
// a model only one algorithm achieves (data-released-by, e.g. dp through safepub) sets and locks that
// algorithm and a 100% suppression limit while it is ticked (the server sets them on save as well).
"use strict";
(function () {
  const algorithm = document.getElementById("algorithm");
  const none = document.getElementById("no-options");
  const suppression = document.getElementById("suppression");
  if (!algorithm) return;
  const sync = () => {
    document.querySelectorAll("fieldset.algorithm-options").forEach(set => {
      const mine = set.dataset.algorithm === algorithm.value;
      set.hidden = !mine;
      set.disabled = !mine;
    });
    if (none) none.hidden = algorithm.selectedOptions[0]?.dataset.options === "yes";
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
