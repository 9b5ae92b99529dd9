// The API reference's filter (/docs): narrows the operations to those whose method, path, summary or tag hold every
// word typed, and says how many match. Served as a file (/assets/docs.js), never inline. Without JavaScript the
// contents list and the anchors still lead everywhere.
/* global URLSearchParams */
(function () {
  'use strict';
  var form = document.querySelector('[data-docs-filter-form]');
  if (!form) return;
  var input = form.querySelector('[data-docs-filter]');
  var count = form.querySelector('[data-docs-count]');
  var ops = Array.prototype.slice.call(document.querySelectorAll('[data-docs-op]'));
  var groups = Array.prototype.slice.call(document.querySelectorAll('[data-docs-group]'));
  var timer = null;
  form.hidden = false;
  form.addEventListener('submit', function (e) { e.preventDefault(); apply(); });
  function apply() {
    var terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    ops.forEach(function (op) {
      var words = op.getAttribute('data-docs-op');
      var match = terms.every(function (t) { return words.indexOf(t) >= 0; });
      op.hidden = !match;
      if (match) shown++;
    });
    groups.forEach(function (g) { g.hidden = !g.querySelector('[data-docs-op]:not([hidden])'); });
    count.textContent = terms.length === 0 ? '' : shown === 0 ? 'No operation matches.' : shown + ' of ' + ops.length + ' operations match.';
  }
  input.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(apply, 120);
  });
  // /docs?q=webhooks opens the reference filtered (a link one can share).
  var q = new URLSearchParams(window.location.search).get('q');
  if (q) { input.value = q; apply(); }
})();
