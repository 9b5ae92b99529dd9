// The copy button of a new API key on /me/keys: progressive enhancement. Without JavaScript the key sits selectable in
// a read-only field. A static file, not an inline script, so the pages' Content-Security-Policy allows no inline code.
(function () {
  'use strict';
  document.querySelectorAll('[data-copy]').forEach(function (button) {
    var input = document.getElementById(button.getAttribute('data-copy'));
    var status = document.getElementById('copy-status');
    button.hidden = false;
    button.addEventListener('click', function () {
      input.select();
      var done = function () { status.textContent = 'Copied to the clipboard.'; };
      var manual = function () { status.textContent = 'Press Ctrl+C (or ⌘C) to copy the selected key.'; };
      if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, manual); else manual();
    });
  });
})();
