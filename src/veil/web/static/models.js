// veil serve, Models page: the algorithm-options box is enabled only for an algorithm that takes options.
"use strict";
(function () {
  const algorithm = document.getElementById("algorithm");
  const options = document.getElementById("algorithm-options");
  if (!algorithm || !options) return;
  const sync = () => {
    const takes = algorithm.selectedOptions[0]?.dataset.options === "yes";
    options.disabled = !takes;
    options.placeholder = takes ? "e.g. {}" : "this algorithm takes no options";
  };
  algorithm.addEventListener("change", sync);
  sync();
})();
