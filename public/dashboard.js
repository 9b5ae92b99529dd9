// Copy buttons on the dashboard: a progressive enhancement. Without JavaScript the value is plain selectable text and
// the button stays hidden; with it, one click (or Enter, or Space) copies the value and says so to screen readers.
(function () {
  'use strict';
  if (!navigator.clipboard || !window.isSecureContext) return;
  var buttons = document.querySelectorAll('button[data-copy]');
  Array.prototype.forEach.call(buttons, function (button) {
    var target = document.getElementById(button.getAttribute('data-copy'));
    if (!target) return;
    var status = button.parentNode.querySelector('.copy-status');
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(target.textContent.trim()).then(
        function () {
          if (status) status.textContent = 'Copied';
        },
        function () {
          if (status) status.textContent = 'Could not copy: select the text instead';
        },
      );
    });
  });
  // The one-time secret or a batch's results: bring them into view and focus, so nobody misses them.
  var first = document.getElementById('secret') || document.getElementById('batch');
  if (first) first.focus();
})();
