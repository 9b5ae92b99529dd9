// Copy buttons and the embed page's snippets on the dashboard: a progressive enhancement. Without JavaScript the value is plain selectable text and
// the button stays hidden; with it, one click (or Enter, or Space) copies the value and says so to screen readers.
(function () {
  'use strict';
  // The embed page: the snippets follow the page, style and language as they are chosen, so Copy copies what the
  // form shows; the preview is the server's, on "Update the preview".
  var embedForm = document.querySelector('form.embed-form[data-pages]');
  if (embedForm) {
    var urls = JSON.parse(embedForm.getAttribute('data-pages') || '{}');
    var site = embedForm.getAttribute('data-site');
    var tag = function (page, style, lang) {
      return '<script async src="' + site + '/embed.js" data-page="' + page + '" data-style="' + style + '" data-lang="' + lang + '"></' + 'script>';
    };
    embedForm.addEventListener('change', function () {
      var url = urls[embedForm.elements.page.value];
      var chosen = embedForm.querySelector('input[name=style]:checked');
      var style = chosen ? chosen.value : 'full';
      var lang = embedForm.elements.lang.value;
      var snippet = document.querySelector('#snippet code');
      var template = document.querySelector('#template-snippet code');
      var link = document.getElementById('snippet-page');
      if (snippet && url) snippet.textContent = tag(url, style, lang);
      if (template) template.textContent = tag('auto', style, lang);
      if (link && url) {
        link.href = url;
        link.textContent = url;
      }
    });
  }
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
