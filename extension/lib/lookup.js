// The private lookup (docs/extension.md), shared by the background worker and the popup. The hosts list (every
// verified domain; public, the same for everyone) is kept in storage and revalidated with If-None-Match. For a host
// outside it, nothing is sent. For a listed host, the page's embed key (SPEC §3) is hashed with SHA-256 and only the
// first `bucket_hex` hex digits are asked for; the answer lists every record of that bucket and the full hash is
// matched here. Every request is a plain public read: no cookie (`credentials: 'omit'`), no referrer, no identifier.
(function (root) {
  'use strict';
  var api = root.browser || root.chrome;
  var K = root.CredenceUrlKey;
  var DAY = 24 * 3600 * 1000;
  var BUCKET_TTL = 5 * 60 * 1000;
  var buckets = new Map();

  function trimService(s) { return String(s || '').replace(/\/+$/, ''); }

  /** The service asked: the one set in the options, else the one the build was made for. */
  function service() {
    return api.storage.local.get(['service']).then(function (s) { return trimService(s.service || root.CREDENCE_SERVICE); });
  }

  function request(url, headers, cache) {
    return fetch(url, { credentials: 'omit', referrerPolicy: 'no-referrer', cache: cache || 'default', headers: headers || {} });
  }

  function unavailable(message) { var e = new Error(message); e.transient = true; return e; }

  function getJson(url) {
    return request(url, { accept: 'application/json' }).then(function (r) {
      if (!r.ok) throw (r.status === 429 || r.status >= 500 ? unavailable(r.status + ' from the service') : new Error(r.status + ' from the service'));
      return r.json();
    }, function () { throw unavailable('the service could not be reached'); });
  }
  function getText(url) {
    return request(url, { accept: 'text/plain' }, 'no-cache').then(function (r) {
      if (!r.ok) throw (r.status === 429 || r.status >= 500 ? unavailable(r.status + ' from the service') : new Error(r.status + ' from the service'));
      return r.text();
    }, function () { throw unavailable('the service could not be reached'); });
  }

  function validHosts(body) {
    return body && Array.isArray(body.domains) && body.domains.every(function (d) { return typeof d === 'string'; }) &&
      Number.isInteger(body.bucket_hex) && body.bucket_hex >= 1 && body.bucket_hex <= 16;
  }

  /**
   * The hosts list of the service: from storage while it is less than a day old (or `force`), else revalidated with
   * the ETag it came with (304: kept). Null when there is none and the service cannot be reached.
   */
  function hosts(force) {
    return Promise.all([service(), api.storage.local.get(['hosts'])]).then(function (r) {
      var svc = r[0], held = r[1].hosts && r[1].hosts.service === svc ? r[1].hosts : null;
      if (held && !force && Date.now() - held.checked < DAY) return held;
      var headers = { accept: 'application/json' };
      if (held && held.etag) headers['if-none-match'] = held.etag;
      // no-store: the browser's cache stays out of it, so a 304 comes back here and the ETag held is the one sent.
      return request(svc + '/v1/extension/hosts', headers, 'no-store').then(function (res) {
        if (res.status === 304 && held) return Object.assign({}, held, { checked: Date.now() });
        if (!res.ok) return held;
        return res.json().then(function (body) {
          if (!validHosts(body)) return held;
          return { service: svc, domains: body.domains, bucket_hex: body.bucket_hex, etag: res.headers.get('etag'), checked: Date.now() };
        });
      }, function () { return held; }).then(function (next) {
        if (next && next !== held) return api.storage.local.set({ hosts: next }).then(function () { return next; });
        return next;
      });
    });
  }

  /** One bucket's answer, kept five minutes in memory; a record whose hash is not in the bucket is dropped. */
  function bucket(svc, prefix) {
    var key = svc + ' ' + prefix, held = buckets.get(key);
    if (held && Date.now() - held.at < BUCKET_TTL) return held.body;
    var body = getJson(svc + '/v1/extension/buckets/' + prefix).then(function (b) {
      if (!b || b.prefix !== prefix || !Array.isArray(b.records)) throw new Error('the service answered for another bucket');
      b.records = b.records.filter(function (rec) { return rec && typeof rec.hash === 'string' && rec.hash.indexOf(prefix) === 0; });
      return b;
    });
    buckets.set(key, { at: Date.now(), body: body });
    body.catch(function () { buckets.delete(key); });
    return body;
  }

  function offSites() {
    return api.storage.local.get(['off']).then(function (s) { return Array.isArray(s.off) ? s.off : []; });
  }

  /**
   * What the extension knows of a page: `unsupported` (not http or https), `off` (turned off for the site),
   * `unavailable` (no hosts list), `unlisted` (no verified publisher: nothing sent), `none` (listed, no record in its
   * bucket), `withheld` (not listed, but its publisher has records the bucket counts without listing: with the
   * publisher and the service) or `record` (with the bucket's entry, its hash, the bucket and the service).
   */
  function lookup(url) {
    var host = K.hostOf(url);
    if (!host) return Promise.resolve({ state: 'unsupported' });
    return offSites().then(function (off) {
      if (off.indexOf(host) >= 0) return { state: 'off', host: host };
      return hosts(false).then(function (h) {
        if (!h) return { state: 'unavailable', host: host };
        if (!K.listed(host, h.domains)) return { state: 'unlisted', host: host };
        var key = K.embedKey(url);
        if (!key) return { state: 'unsupported', host: host };
        return K.sha256Hex(key).then(function (hash) {
          var prefix = hash.slice(0, h.bucket_hex);
          return bucket(h.service, prefix).then(function (b) {
            var match = b.records.filter(function (rec) { return rec.hash === hash; })[0];
            if (match) return { state: 'record', host: host, key: key, hash: hash, prefix: prefix, service: h.service, record: match };
            // A publisher past its share of the bucket has records the answer only counts: a page on its domains
            // may be one of them, so "no record" would not be true.
            var over = (Array.isArray(b.withheld) ? b.withheld : []).filter(function (x) {
              return x && x.publisher && Array.isArray(x.domains) && K.listed(host, x.domains);
            })[0];
            return over ? { state: 'withheld', host: host, service: h.service, publisher: over.publisher } : { state: 'none', host: host };
          }, function () { return { state: 'unavailable', host: host }; });
        });
      });
    });
  }

  var FLAGGED = ['retracted', 'withdrawn', 'removed'];
  /** The record's tone, as the embed's: `flagged` (retracted, withdrawn, removed), `caution` (partly retracted, a concern) or `ok`. */
  function tone(record) {
    if (!record.standing || record.standing === 'current') return 'ok';
    return FLAGGED.indexOf(record.standing) >= 0 ? 'flagged' : 'caution';
  }

  root.CredenceLookup = { service: service, hosts: hosts, bucket: bucket, lookup: lookup, tone: tone, offSites: offSites, getJson: getJson, getText: getText, trimService: trimService };
})(typeof self !== 'undefined' ? self : this);
