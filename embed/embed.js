/*! Credence embed: the verified contribution history of a page. https://credence.example/docs
 *
 * <script async src="{site_url}/embed.js" data-page="auto" data-style="full" data-lang="en"></script>
 *
 *   data-page     `auto` (default: the page's canonical link, else its address) or a full URL
 *   data-style    `full` (default), `compact` or `badge`
 *   data-lang     `en`, `de`, `fr`, `es` (default: the page's lang attribute, else English)
 *   data-refresh  seconds between revalidations while the tab is visible (default and maximum 60; tests use 1)
 *
 * Readers stay private: no cookies, no storage, no credentials; requests go only to the service that served
 * this script. Shown only for pages on a publisher's verified domain with accepted work.
 */
(function () {
  'use strict';
  var DONE = 'data-credence-mounted';
  // The block's stylesheet, put in by the service as it serves this script. Adopted into each block's shadow root
  // (a constructed stylesheet: a page whose Content-Security-Policy bars inline styles still shows it styled);
  // the block's own <link> to it is for pages that insert the block without this script.
  var CSS = "__CREDENCE_EMBED_CSS__";
  var sheet;

  /** Whether `root` now has the block's stylesheet: a shadow root in a browser with constructed stylesheets. */
  function adopt(root, host) {
    if (root === host || !('adoptedStyleSheets' in root) || typeof CSSStyleSheet !== 'function') return false;
    try {
      if (!sheet) {
        sheet = new CSSStyleSheet();
        sheet.replaceSync(CSS);
      }
      root.adoptedStyleSheets = [sheet];
      return true;
    } catch (e) {
      void e; // a browser that refuses the sheet keeps the block's <link> instead
      return false;
    }
  }

  function mount(script) {
    if (!script || script.hasAttribute(DONE)) return;
    script.setAttribute(DONE, '');
    var base = new URL(script.src, location.href).origin;
    var d = script.dataset;
    var page = d.page && d.page !== 'auto' ? d.page : canonical();
    var style = ['full', 'compact', 'badge'].indexOf(d.style) >= 0 ? d.style : 'full';
    var lang = (d.lang || document.documentElement.lang || 'en').toLowerCase().split('-')[0];
    var every = Math.min(60, Math.max(1, Number(d.refresh) || 60)) * 1000;
    var api = base + '/api/v1/embed/by-url?url=' + encodeURIComponent(page) + '&style=' + style + '&lang=' + encodeURIComponent(lang);

    var host = document.createElement('div');
    host.setAttribute('data-credence-block', '');
    script.parentNode.insertBefore(host, script.nextSibling);
    // A shadow root keeps the host page's CSS out of the block.
    var root = host.attachShadow ? host.attachShadow({ mode: 'open' }) : host;
    var adopted = adopt(root, host);
    var shown = null;
    var timer = null;

    function load() {
      // `no-cache` makes the browser revalidate with the stored ETag (If-None-Match) every time; a 304 costs nothing.
      fetch(api, { credentials: 'omit', cache: 'no-cache', mode: 'cors', referrerPolicy: 'no-referrer' })
        .then(function (r) {
          return r.ok ? r.json() : null;
        })
        .then(function (body) {
          if (!body || typeof body.html !== 'string' || body.html === shown) return;
          shown = body.html;
          show(body.html);
          host.hidden = body.html === '';
        })
        .catch(function () {});
    }

    function show(html) {
      // Parsed in an inert template, so a <link> dropped here is never fetched.
      var t = document.createElement('template');
      t.innerHTML = html;
      var link = adopted && t.content.querySelector('link[rel="stylesheet"]');
      if (link) link.parentNode.removeChild(link);
      root.innerHTML = '';
      root.appendChild(t.content);
    }

    function schedule() {
      clearInterval(timer);
      timer = null;
      if (document.visibilityState === 'visible') timer = setInterval(load, every);
    }

    document.addEventListener('visibilitychange', function () {
      if (document.visibilityState === 'visible') load();
      schedule();
    });
    host.hidden = true;
    load();
    schedule();
  }

  function canonical() {
    var link = document.querySelector('link[rel="canonical"]');
    return (link && link.href) || location.href;
  }

  mount(document.currentScript);
  // Scripts loaded in ways that leave currentScript empty still find their tags.
  var tags = document.querySelectorAll('script[src*="/embed.js"]');
  for (var i = 0; i < tags.length; i++) mount(tags[i]);
})();
