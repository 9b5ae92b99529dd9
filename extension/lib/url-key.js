// A page's embed key (SPEC §3), as the service computes it (src/domain/pages/url-keys.ts): the WHATWG parser's host
// (lower-cased, IDN as punycode, default port dropped) without a leading `www.`, then the path without its trailing
// slashes; no scheme, query or fragment. Null for anything but an http(s) URL of at most 2,048 characters.
// The shared cases in test/vectors/embed-keys.json run against this file and the service's code alike
// (test/vectors/embed-keys.test.ts).
(function (root) {
  'use strict';
  var MAX_URL_LENGTH = 2048;

  function embedKey(input) {
    if (typeof input !== 'string' || input.length === 0 || input.length > MAX_URL_LENGTH) return null;
    var u;
    try {
      u = new URL(input);
    } catch {
      return null;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    if (!u.hostname) return null;
    // As the service: what RFC 3986 does not allow raw (`|{}^[]`, a backquote, a stray `%`) is percent-encoded, so
    // `/a|b` and `/a%7Cb` are one page.
    if (NOT_URI.test(u.pathname) || NOT_URI.test(u.search)) {
      u.hash = '';
      u.pathname = uriComponent(u.pathname);
      if (u.search) u.search = uriComponent(u.search.slice(1));
      if (u.href.length > MAX_URL_LENGTH) return null;
    }
    var host = u.port ? u.hostname + ':' + u.port : u.hostname;
    return host.replace(/^www\./, '') + u.pathname.replace(/\/+$/, '');
  }

  var NOT_URI = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]|%(?![0-9A-Fa-f]{2})/;
  var URI_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?]/;

  /** Percent-encode (UTF-8) what RFC 3986 does not allow in a path or query, and a `%` that starts no escape. */
  function uriComponent(s) {
    var out = '';
    for (var i = 0; i < s.length; i++) {
      var c = s[i];
      if (URI_SAFE.test(c) || (c === '%' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3)))) {
        out += c;
        continue;
      }
      var ch = String.fromCodePoint(s.codePointAt(i));
      if (ch.length === 2) i++;
      var bytes = new TextEncoder().encode(ch);
      for (var j = 0; j < bytes.length; j++) out += '%' + (bytes[j] < 16 ? '0' : '') + bytes[j].toString(16).toUpperCase();
    }
    return out;
  }

  /** The host a URL names, as the hosts list names domains (lower case, no port, no trailing dot); null if not http(s). */
  function hostOf(input) {
    try {
      var u = new URL(input);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
      return u.hostname.replace(/\.$/, '') || null;
    } catch {
      return null;
    }
  }

  /** A verified domain covers itself and its subdomains (SPEC §1). */
  function listed(host, domains) {
    if (!host) return null;
    for (var i = 0; i < domains.length; i++) {
      var d = domains[i];
      if (host === d || host.slice(-(d.length + 1)) === '.' + d) return d;
    }
    return null;
  }

  /** Lowercase hex SHA-256 of a string's UTF-8 bytes. */
  function sha256Hex(text) {
    return root.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)).then(function (d) {
      return Array.prototype.map.call(new Uint8Array(d), function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
    });
  }

  root.CredenceUrlKey = { embedKey: embedKey, hostOf: hostOf, listed: listed, sha256Hex: sha256Hex };
})(typeof self !== 'undefined' ? self : this);
