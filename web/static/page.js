// The memory page's small comforts; every action works without this file (plain forms).
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  // bring what just happened (and its Undo) to the reader, also a screen reader's
  var notice = document.getElementById("notice");
  if (notice) { notice.setAttribute("tabindex", "-1"); notice.focus(); }
  // a typed confirmation enables its button only when the words match
  document.querySelectorAll("[data-confirm-words]").forEach(function (input) {
    var button = document.getElementById(input.getAttribute("data-confirm-button"));
    if (!button) { return; }
    var check = function () { button.disabled = input.value.trim() !== input.getAttribute("data-confirm-words"); };
    input.addEventListener("input", check);
    check();
  });
  // the Telegram Mini App: Telegram puts its signed initData in the address's fragment
  // (tgWebAppData=...); the server checks the signature and its date before opening anything
  var miniapp = document.getElementById("miniapp-login");
  if (miniapp) {
    var fragment = new URLSearchParams(window.location.hash.slice(1));
    var data = fragment.get("tgWebAppData");
    if (data) {
      document.getElementById("init-data").value = data;
      miniapp.submit();
    } else {
      document.getElementById("miniapp-status").textContent = "No Telegram sign-in data here: open this page from the assistant's menu button in Telegram.";
    }
  }
  // an open editor puts the cursor in its text
  document.querySelectorAll(".actions details").forEach(function (d) {
    d.addEventListener("toggle", function () {
      var input = d.querySelector("input[type=text]");
      if (d.open && input) { input.focus(); }
    });
  });
});
