// The popup: the record of the page in the current tab (from the bucket the badge already asked for), and its proof
// checked here, in the browser, against the log's witnessed checkpoint and the policy's quorum with the proof page's
// own checks (lib/log-core.js). Each entry must be about this page (its URL has this page's embed key) and about
// this work (its role, or its notice's type), or a valid proof of another entry could stand in for it. A check that
// could not run says so; only a proof that fails says NOT verified. Opened as popup.html?tab=<id>, it shows that tab.
(function () {
  'use strict';
  var api = self.browser || self.chrome;
  var L = self.CredenceLookup, K = self.CredenceUrlKey, S = self.CredenceStrings, C = self.CredenceLogCore;
  var t = S.t, w = S.embed;
  var main = document.getElementById('main');
  var toggle = document.getElementById('toggle-site');
  document.documentElement.lang = S.lang;
  document.getElementById('options-link').textContent = t.options;

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { if (c !== null && c !== undefined) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }
  function safeHref(url) { return typeof url === 'string' && /^https?:\/\//i.test(url) ? url : null; }
  function link(url, text) { var href = safeHref(url); return href ? el('a', { href: href, target: '_blank', rel: 'noopener' }, [text]) : document.createTextNode(text); }
  // The site's day style (src/domain/dates.ts): "12 Nov 2026", English written day first as the site writes it.
  var dates = new Intl.DateTimeFormat(S.lang === 'en' ? 'en-GB' : S.lang, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
  function date(iso) {
    var d = new Date(iso);
    return isNaN(d.getTime()) ? null : el('time', { datetime: iso }, [dates.format(d)]);
  }
  function say(text, state) {
    main.replaceChildren(el('p', { 'data-state': state }, [text]));
    main.setAttribute('aria-busy', 'false');
  }

  function currentTab() {
    var asked = new URLSearchParams(location.search).get('tab');
    if (asked) return api.tabs.get(Number(asked));
    return api.tabs.query({ active: true, currentWindow: true }).then(function (tabs) { return tabs[0]; });
  }

  function offToggle(host, off) {
    if (!host) return;
    toggle.hidden = false;
    toggle.textContent = off ? t.turnOn : t.turnOff;
    toggle.onclick = function () {
      L.offSites().then(function (sites) {
        var next = off ? sites.filter(function (s) { return s !== host; }) : sites.concat([host]);
        return api.storage.local.set({ off: next });
      }).then(function () { location.reload(); });
    };
  }

  var GROUPS = [['author', t.authors], ['review', t.reviews], ['fact_check', t.factChecks], ['correction', t.corrections]];

  function proofLink(service, index) {
    return Number.isInteger(index) ? [' · ', link(service + '/log/' + index, t.proofLink)] : [];
  }

  function workItem(service, item, showRole) {
    return el('li', {}, [
      showRole ? el('span', { class: 'role' }, [(w.roles[item.role] || item.role) + ': ']) : null,
      link(item.profile_url, item.name || '—'),
      item.date ? date(item.date) : null,
    ].concat(proofLink(service, item.log_index)));
  }

  function render(result) {
    var rec = result.record, service = result.service, tone = L.tone(rec);
    var work = Array.isArray(rec.work) ? rec.work : [];
    var notices = (Array.isArray(rec.notice_items) ? rec.notice_items.slice() : []).sort(function (a, b) { return String(b.date).localeCompare(String(a.date)); });
    var panels = Array.isArray(rec.panels) ? rec.panels : [];
    var parts = [
      el('h1', {}, [link(rec.record_url, rec.title || rec.url || result.key)]),
      rec.publisher ? el('p', { class: 'publisher' }, [t.publishedBy + ' ', link(service + '/publishers/' + encodeURIComponent(rec.publisher.slug || ''), rec.publisher.name || rec.publisher.slug || '')]) : null,
    ];
    if (tone !== 'ok' && w.standings[rec.standing]) {
      parts.push(el('p', { class: 'standing', 'data-standing': rec.standing }, [el('strong', {}, [w.standings[rec.standing].label]), '. ', w.standings[rec.standing].sentence]));
    }
    parts.push(el('p', { class: 'count' }, [t.contributions(Number(rec.contributions) || 0)]));
    GROUPS.forEach(function (g) {
      var items = work.filter(function (x) { return x.role === g[0]; });
      if (items.length) parts.push(el('section', { 'data-role': g[0] }, [el('h2', {}, [g[1]]), el('ul', {}, items.map(function (x) { return workItem(service, x, false); }))]));
    });
    var other = work.filter(function (x) { return !GROUPS.some(function (g) { return g[0] === x.role; }); });
    if (other.length) parts.push(el('section', { 'data-role': 'other' }, [el('h2', {}, [t.other]), el('ul', {}, other.map(function (x) { return workItem(service, x, true); }))]));
    if (notices.length) {
      parts.push(el('section', { 'data-notices': '' }, [el('h2', {}, [w.noticesHeading || 'Notices']), el('ul', {}, notices.map(function (n) {
        return el('li', {}, [
          el('span', { class: 'kind' }, [w.notices[n.type] || n.type]),
          n.date ? date(n.date) : null,
          n.reason ? el('span', {}, [' — ' + n.reason]) : null,
          n.url ? ' · ' : null, n.url ? link(n.url, w.readNotice || 'Read the notice') : null,
        ].concat(proofLink(service, n.log_index)));
      }))]));
    }
    if (panels.length) {
      parts.push(el('section', { 'data-panels': '' }, [el('h2', {}, [t.panels]), el('ul', {}, panels.map(function (p) { return el('li', {}, [link(p.url, p.title || p.url)]); }))]));
    }
    var proof = el('p', { class: 'proof', role: 'status', 'data-proof-state': 'checking' }, [t.checking]);
    parts.push(proof);
    if (safeHref(rec.record_url)) parts.push(el('p', {}, [link(rec.record_url, t.fullRecord)]));
    // The report form for the page's record (DSA Art. 16), on the service the record came from; the form names
    // the item, and the reader may narrow it to one contribution there.
    var pageId = /\/records\/([0-9]{1,15})$/.exec(String(rec.record_url || ''));
    if (pageId) parts.push(el('p', { class: 'report' }, [link(service + '/report?item=page:' + pageId[1], t.report)]));
    main.className = 'tone-' + tone;
    main.replaceChildren.apply(main, parts.filter(Boolean));
    main.setAttribute('aria-busy', 'false');
    check(result, work, notices).then(function (r) {
      proof.setAttribute('data-proof-state', r.state);
      proof.textContent = r.text;
    });
  }

  function fail(message) { return C.fail(message); }

  /** Each logged item's entry, proved against the witnessed checkpoint, and about this page and this item. */
  function check(result, work, notices) {
    if (!C.supported) return Promise.resolve({ state: 'unavailable', text: t.couldNotCheck('no WebCrypto in this browser') });
    var svc = result.service;
    var items = work.map(function (x) { return { index: x.log_index, kind: 'contribution.accepted', what: x.role }; })
      .concat(notices.map(function (n) { return { index: n.log_index, kind: 'page.notice', what: n.type }; }));
    var logged = items.filter(function (x) { return Number.isInteger(x.index); });
    var unlogged = items.length - logged.length;
    if (logged.length === 0) return Promise.resolve({ state: 'pending', text: t.notLogged });
    var checkpoint;
    return Promise.all([L.getJson(svc + '/v1/extension/buckets/' + result.prefix + '/proofs'), L.getText(svc + '/v1/log/key'), L.getText(svc + '/v1/log/policy')])
      .then(function (r) {
        var answer = r[0];
        if (!answer || typeof answer.checkpoint !== 'string' || !Array.isArray(answer.proofs)) throw fail('the proofs answer is malformed');
        return C.checkCheckpoint(r[1], r[2], answer.checkpoint).then(function (c) { checkpoint = c; return answer.proofs; });
      })
      .then(function (proofs) {
        var pending = unlogged;
        return Promise.all(logged.map(function (item) {
          var p = proofs.filter(function (x) { return x && x.index === item.index; })[0];
          if (!p) {
            // Not yet in the witnessed checkpoint: said, not failed. Inside it, a claim without its proof fails.
            if (item.index >= checkpoint.size) { pending++; return true; }
            throw fail('entry ' + item.index + ' comes without its proof');
          }
          var bytes, body;
          try {
            bytes = C.fromB64(String(p.entry));
            body = JSON.parse(new TextDecoder().decode(bytes));
          } catch {
            throw fail('entry ' + item.index + ' is not a log entry');
          }
          var about = body && body.kind === item.kind && body.page && K.embedKey(body.page.url) === result.key &&
            (item.kind === 'page.notice' ? body.notice && body.notice.type === item.what : body.contribution && body.contribution.role === item.what);
          if (!about) throw fail('entry ' + item.index + ' is not about this page’s ' + item.what);
          var hashes = Array.isArray(p.hashes) ? p.hashes.map(function (h) { return C.fromB64(String(h)); }) : [];
          return C.included(bytes, item.index, checkpoint.size, checkpoint.root, hashes).then(function (ok) {
            if (!ok) throw fail('entry ' + item.index + ' and its proof do not lead to the signed root');
            return true;
          });
        })).then(function () {
          var text = t.verified(checkpoint.vouched);
          return { state: 'verified', text: pending ? text + ' ' + t.notLogged : text };
        });
      })
      .catch(function (e) {
        var message = e && e.message ? e.message : String(e);
        if (e && e.final) return { state: 'failed', text: t.notVerified(message) };
        return { state: 'unavailable', text: t.couldNotCheck(message) };
      });
  }

  currentTab().then(function (tab) {
    var host = tab && tab.url ? K.hostOf(tab.url) : null;
    return (tab && tab.url ? L.lookup(tab.url) : Promise.resolve({ state: 'unsupported' })).then(function (result) {
      offToggle(host, result.state === 'off');
      if (result.state === 'record') return render(result);
      if (result.state === 'withheld') {
        var pub = result.publisher;
        main.replaceChildren(el('p', { 'data-state': 'withheld' }, [t.withheld(pub.name || pub.slug || '')]),
          el('p', {}, [link(result.service + '/publishers/' + encodeURIComponent(pub.slug || ''), t.withheldLink)]));
        main.setAttribute('aria-busy', 'false');
        return;
      }
      var words = { off: t.off, unlisted: t.unlisted, none: t.noRecord, unavailable: t.unavailable, unsupported: t.unsupported };
      say(words[result.state] || t.unavailable, result.state);
    });
  }).catch(function () { say(t.unavailable, 'unavailable'); });
})();
