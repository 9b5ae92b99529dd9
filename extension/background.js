// The toolbar button's badge for the page in each tab, from the private lookup (lib/lookup.js): the number of
// accepted contributions, or a mark when the page was retracted, withdrawn, removed or carries an expression of
// concern (its title says which). Nothing on other pages, and nothing inserted into any page. The hosts list is
// revalidated daily, and sooner when the public change feed shows a domain verified, moved or revoked.
// Chromium runs this as a service worker (importScripts below); Firefox as a background script, after the same
// files listed in its manifest.
'use strict';
if (typeof importScripts === 'function') {
  importScripts('lib/config.js', 'lib/embed-words.js', 'lib/messages.js', 'lib/strings.js', 'lib/url-key.js', 'lib/lookup.js');
}
(function () {
  var api = self.browser || self.chrome;
  var L = self.CredenceLookup, S = self.CredenceStrings;
  var COLORS = { ok: '#116329', caution: '#9a6700', flagged: '#a40e26' };
  var FEED_PAGE = 200;

  function badgeFor(result) {
    if (result.state !== 'record') return { text: '', title: S.t.name };
    var rec = result.record, tone = L.tone(rec);
    if (tone !== 'ok') {
      var standing = S.embed.standings[rec.standing];
      return { text: '!', color: COLORS[tone], title: S.t.name + ': ' + (standing ? standing.label : rec.standing) };
    }
    var n = Number(rec.contributions) || 0;
    return { text: n > 99 ? '99+' : String(n), color: COLORS.ok, title: S.t.name + ': ' + S.t.contributions(n) };
  }

  // The newest lookup of each tab wins: an older one finishing late does not overwrite it.
  var latest = new Map();
  function update(tabId, url) {
    var token = {};
    latest.set(tabId, token);
    // Cleared first, so a page never shows the badge of the one before it.
    var clear = Promise.all([api.action.setBadgeText({ tabId: tabId, text: '' }), api.action.setTitle({ tabId: tabId, title: S.t.name })]);
    return clear.then(function () { return url ? L.lookup(url) : { state: 'unsupported' }; }).then(function (result) {
      if (latest.get(tabId) !== token) return;
      var b = badgeFor(result);
      var sets = [api.action.setBadgeText({ tabId: tabId, text: b.text }), api.action.setTitle({ tabId: tabId, title: b.title })];
      if (b.color) sets.push(api.action.setBadgeBackgroundColor({ tabId: tabId, color: b.color }));
      if (b.color && api.action.setBadgeTextColor) sets.push(api.action.setBadgeTextColor({ tabId: tabId, color: '#ffffff' }));
      return Promise.all(sets);
    }).catch(function () { /* the tab closed meanwhile */ });
  }

  function updateAll() {
    return api.tabs.query({}).then(function (tabs) { return Promise.all(tabs.map(function (t) { return update(t.id, t.url); })); });
  }

  // The change feed, read hourly from where it was left: a domain verified, moved or revoked refreshes the hosts list.
  // Its entries are public and the same for every reader; nothing in the request is about this reader.
  function followFeed() {
    return Promise.all([L.service(), api.storage.local.get(['feed'])]).then(function (r) {
      var svc = r[0], held = r[1].feed && r[1].feed.service === svc ? r[1].feed.cursor : null;
      if (held === null) {
        // First run: the hosts list was just fetched; start from the feed's end (its checkpoint's size is its length).
        return L.getText(svc + '/v1/log/checkpoint').then(function (note) {
          var size = Number(note.split('\n')[1]);
          return api.storage.local.set({ feed: { service: svc, cursor: Number.isInteger(size) ? size : 0 } });
        });
      }
      return L.getJson(svc + '/v1/changes?after=' + held + '&limit=' + FEED_PAGE).then(function (page) {
        var rows = Array.isArray(page.data) ? page.data : [];
        var moved = rows.some(function (e) { return typeof e.kind === 'string' && e.kind.indexOf('domain.') === 0; });
        var next = page.meta && Number.isInteger(page.meta.next_cursor) ? page.meta.next_cursor : held;
        // More than a page behind: refresh rather than read every entry since.
        var refresh = moved || Boolean(page.meta && page.meta.has_more);
        return api.storage.local.set({ feed: { service: svc, cursor: next } }).then(function () {
          return refresh ? L.hosts(true).then(updateAll) : null;
        });
      });
    }).catch(function () { /* tried again at the next alarm */ });
  }

  function schedule() {
    api.alarms.create('hosts', { periodInMinutes: 24 * 60 });
    api.alarms.create('feed', { periodInMinutes: 60 });
  }

  api.runtime.onInstalled.addListener(function () {
    schedule();
    L.hosts(true).then(followFeed).then(updateAll);
  });
  api.runtime.onStartup.addListener(function () {
    schedule();
    updateAll();
  });
  api.alarms.onAlarm.addListener(function (alarm) {
    if (alarm.name === 'hosts') L.hosts(true).then(updateAll);
    else if (alarm.name === 'feed') followFeed();
  });
  api.tabs.onUpdated.addListener(function (tabId, change, tab) {
    if (change.url || change.status === 'loading') update(tabId, change.url || tab.url);
  });
  api.tabs.onRemoved.addListener(function (tabId) { latest.delete(tabId); });
  // A new service address or a site turned off or on: every tab's badge again.
  api.storage.onChanged.addListener(function (changes, area) {
    if (area === 'local' && (changes.service || changes.off)) {
      (changes.service ? L.hosts(true) : Promise.resolve()).then(updateAll);
    }
  });
})();
