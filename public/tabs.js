// The tab strip of the dashboard and of /me scrolls sideways on a phone (app.css): bring the current tab into view,
// so a person on Webhooks sees where they are. A static file, since the pages' Content-Security-Policy allows no
// inline script; without JavaScript the strip starts at its first tab and still scrolls. Again when the width
// changes (a phone turned), not on a height change (a phone's address bar hiding), which would undo a swipe.
(function () {
  'use strict';
  var strip = document.querySelector('nav.tabs');
  var current = strip && strip.querySelector('[aria-current="page"]');
  if (!current) return;
  var bring = function () {
    if (strip.scrollWidth <= strip.clientWidth) return;
    // Rest on a tab's start (the first from which the current tab still fits whole), so no word is cut on the left.
    var box = strip.getBoundingClientRect();
    var end = current.getBoundingClientRect().right;
    var tabs = strip.querySelectorAll('a');
    for (var i = 0; i < tabs.length; i++) {
      var start = tabs[i].getBoundingClientRect().left;
      if (end - start <= strip.clientWidth || tabs[i] === current) {
        strip.scrollLeft += start - box.left;
        return;
      }
    }
  };
  var width = window.innerWidth;
  bring();
  window.addEventListener('resize', function () {
    if (window.innerWidth === width) return;
    width = window.innerWidth;
    bring();
  });
})();
