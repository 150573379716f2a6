// Project Aurora: a copy button on every block of code (cells and code in the prose, not
// outputs). Nothing is fetched: the site works offline.
(function () {
  "use strict";
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand("copy");
      document.body.removeChild(area);
      (ok ? resolve : reject)();
    });
  }
  function addButtons() {
    document.querySelectorAll("div.highlight").forEach(function (block) {
      if (block.closest(".cell_output") || block.querySelector("button.aurora-copy")) return;
      var pre = block.querySelector("pre");
      if (!pre) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "aurora-copy";
      button.textContent = "Copy";
      button.title = "Copy the code";
      button.setAttribute("aria-label", "Copy the code");
      button.addEventListener("click", function () {
        var lines = pre.querySelectorAll("span.aurora-line");
        var text = lines.length
          ? Array.prototype.map.call(lines, function (l) { return l.textContent; }).join("\n")
          : pre.innerText.replace(/\n$/, "");
        copyText(text).then(
          function () { button.textContent = "Copied"; },
          function () { button.textContent = "Select and copy"; }
        );
        setTimeout(function () { button.textContent = "Copy"; }, 2000);
      });
      block.appendChild(button);
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", addButtons);
  } else {
    addButtons();
  }
})();
