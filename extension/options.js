// The settings: the service's address (a self-hosted Credence; the build's own by default) and the sites the reader
// turned the extension off for (nothing is sent about them). Stored in the browser only (storage.local).
(function () {
  'use strict';
  var api = self.browser || self.chrome;
  var L = self.CredenceLookup, S = self.CredenceStrings, t = S.t;
  var $ = function (id) { return document.getElementById(id); };
  document.documentElement.lang = S.lang;
  document.title = t.optionsTitle;
  $('title').textContent = t.optionsTitle;
  $('service-label').textContent = t.service;
  $('service-hint').textContent = t.serviceHint;
  $('save').textContent = t.save;
  $('off-heading').textContent = t.offSites;

  /** An https address, or http for this machine only; its origin and path, without a trailing slash. */
  function parseService(input) {
    var u;
    try { u = new URL(String(input).trim()); } catch { return null; }
    var local = u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]';
    if (!(u.protocol === 'https:' || (u.protocol === 'http:' && local)) || u.username || u.password || u.search || u.hash) return null;
    return L.trimService(u.origin + u.pathname);
  }

  function showOff() {
    L.offSites().then(function (sites) {
      var list = $('off-list');
      list.replaceChildren();
      if (!sites.length) { list.appendChild(Object.assign(document.createElement('li'), { textContent: t.noOffSites })); return; }
      sites.forEach(function (host) {
        var li = document.createElement('li'), b = document.createElement('button');
        b.type = 'button';
        b.textContent = t.remove;
        b.setAttribute('aria-label', t.remove + ': ' + host);
        b.addEventListener('click', function () {
          api.storage.local.set({ off: sites.filter(function (s) { return s !== host; }) }).then(showOff);
        });
        li.append(host + ' ', b);
        list.appendChild(li);
      });
    });
  }

  L.service().then(function (s) { $('service').value = s; });
  showOff();
  $('service-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var value = parseService($('service').value);
    $('saved').textContent = '';
    if (!value) {
      $('service-error').textContent = t.invalidService;
      $('service').setAttribute('aria-invalid', 'true');
      $('service').focus();
      return;
    }
    $('service-error').textContent = '';
    $('service').removeAttribute('aria-invalid');
    var reset = value === L.trimService(self.CREDENCE_SERVICE) ? api.storage.local.remove('service') : api.storage.local.set({ service: value });
    reset.then(function () { $('saved').textContent = t.saved; });
  });
})();
