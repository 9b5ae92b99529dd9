// The transparency log's checks that need nothing but WebCrypto, shared by the proof page (/assets/log-verify.js, which
// the server serves with this file in front of it) and the browser extension (copied into its build): a log key's and a
// witness key's parse and hash, a checkpoint's Ed25519 signature, the witnesses' cosignature/v1 lines against the C2SP
// tlog-policy's quorum, an inclusion proof's walk to the signed root (RFC 9162 §2.1.3.2), a consistency proof
// (§2.1.4.2), and salted commitments against their openings. Throws errors with `final` set for a proof that fails.
// Exposed as `self.CredenceLogCore`; a classic script (a page's <script>, a service worker's importScripts).
/* global TextEncoder, atob, btoa, self */
(function (root) {
  'use strict';
  var subtle = root.crypto && root.crypto.subtle;
  var enc = typeof TextEncoder === 'undefined' ? null : new TextEncoder();

  function fromB64(s) {
    var bin = atob(s);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  function toB64(bytes) {
    var s = '';
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s);
  }
  function hex(bytes) {
    return Array.prototype.map.call(bytes, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  }
  function concat() {
    var n = 0, i;
    for (i = 0; i < arguments.length; i++) n += arguments[i].length;
    var out = new Uint8Array(n), at = 0;
    for (i = 0; i < arguments.length; i++) { out.set(arguments[i], at); at += arguments[i].length; }
    return out;
  }
  function equal(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  function sha256() {
    return subtle.digest('SHA-256', concat.apply(null, arguments)).then(function (d) { return new Uint8Array(d); });
  }
  function node(l, r) { return sha256(new Uint8Array([1]), l, r); }
  function fail(message) { var e = new Error(message); e.final = true; return e; }
  function ed25519(pub, sig, msg) {
    return subtle.importKey('raw', pub, { name: 'Ed25519' }, false, ['verify']).then(function (k) {
      return subtle.verify({ name: 'Ed25519' }, k, sig, msg);
    });
  }
  function parseVkey(vkey, type) {
    var m = /^([^+\s]+)\+([0-9a-f]{8})\+(\S+)$/.exec(vkey);
    if (!m) throw fail('a verifier key is malformed');
    var raw = fromB64(m[3]);
    if (raw.length !== 33 || raw[0] !== type) throw fail('a verifier key is not an Ed25519 key of the right kind');
    return { name: m[1], hash: m[2], pub: raw.subarray(1) };
  }
  function sigLines(note) { return note.slice(note.indexOf('\n\n') + 2).split('\n'); }

  // RFC 9162 §2.1.3.2, one step per proof hash.
  function walk(fn, sn, r, hashes, i) {
    if (i === hashes.length) return Promise.resolve(sn === 0 ? r : null);
    if (sn === 0) return Promise.resolve(null);
    var p = hashes[i];
    var step;
    if (fn % 2 === 1 || fn === sn) {
      step = node(p, r).then(function (h) {
        while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
        return h;
      });
    } else {
      step = node(r, p);
    }
    return step.then(function (h) { return walk(Math.floor(fn / 2), Math.floor(sn / 2), h, hashes, i + 1); });
  }

  // RFC 9162 §2.1.4.2.
  function consistent(m, n, proof, root1, root2) {
    if (m === n) return Promise.resolve(proof.length === 0 && equal(root1, root2));
    if (m === 0 || m > n || proof.length === 0) return Promise.resolve(false);
    var path = (m & (m - 1)) === 0 ? [root1].concat(proof) : proof.slice();
    var fn = m - 1, sn = n - 1;
    while (fn % 2 === 1) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
    var fr = Promise.resolve(path[0]), sr = Promise.resolve(path[0]);
    for (var i = 1; i < path.length; i++) {
      if (sn === 0) return Promise.resolve(false);
      (function (c, both) {
        if (both) {
          fr = fr.then(function (f) { return node(c, f); });
          sr = sr.then(function (s) { return node(c, s); });
        } else {
          sr = sr.then(function (s) { return node(s, c); });
        }
      })(path[i], fn % 2 === 1 || fn === sn);
      if (fn % 2 === 1 || fn === sn) {
        while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
      }
      fn = Math.floor(fn / 2); sn = Math.floor(sn / 2);
    }
    return Promise.all([fr, sr]).then(function (r) { return sn === 0 && equal(r[0], root1) && equal(r[1], root2); });
  }

  // --- tlog-policy and cosignatures ---
  function parsePolicy(text) {
    var p = { logs: [], witnesses: [], groups: {}, quorum: null };
    text.split('\n').forEach(function (raw) {
      var line = raw.trim();
      if (!line || line.charAt(0) === '#') return;
      var f = line.split(/[ \t]+/);
      if (f[0] === 'log') p.logs.push(f[1]);
      else if (f[0] === 'witness') p.witnesses.push({ name: f[1], vkey: f[2] });
      else if (f[0] === 'group') {
        var members = f.slice(3);
        p.groups[f[1]] = { k: f[2] === 'all' ? members.length : f[2] === 'any' ? 1 : Number(f[2]), members: members };
      } else if (f[0] === 'quorum') p.quorum = f[1];
      else throw fail('the witness policy has a line this page does not understand');
    });
    if (!p.quorum) throw fail('the witness policy names no quorum');
    return p;
  }
  function quorumMet(p, vouched) {
    function met(name) {
      if (name === 'none') return true;
      var g = p.groups[name];
      if (!g) return vouched.indexOf(name) >= 0;
      return g.members.filter(met).length >= g.k;
    }
    return met(p.quorum);
  }
  function cosigners(p, note, text) {
    var lines = sigLines(note);
    return Promise.all(p.witnesses.map(function (w) {
      var v = parseVkey(w.vkey, 4);
      return sha256(enc.encode(v.name + '\n'), new Uint8Array([4]), v.pub).then(function (id) {
        if (hex(id.subarray(0, 4)) !== v.hash) throw fail('a witness key’s hash does not match it');
        var checks = lines.map(function (l) {
          var s = /^\u2014 (\S+) (\S+)$/.exec(l);
          if (!s || s[1] !== v.name) return Promise.resolve(false);
          var b = fromB64(s[2]);
          if (b.length !== 76 || hex(b.subarray(0, 4)) !== v.hash) return Promise.resolve(false);
          var ts = 0;
          for (var i = 4; i < 12; i++) ts = ts * 256 + b[i];
          return ed25519(v.pub, b.subarray(12), enc.encode('cosignature/v1\ntime ' + ts + '\n' + text));
        });
        return Promise.all(checks).then(function (r) { return r.indexOf(true) >= 0 ? w.name : null; });
      });
    })).then(function (names) { return names.filter(Boolean); });
  }

  // --- salted commitments: HMAC-SHA256(opening, canonical JSON of the value) ---
  function canonical(v) {
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
    return '{' + Object.keys(v).filter(function (k) { return v[k] !== undefined; }).sort().map(function (k) {
      return JSON.stringify(k) + ':' + canonical(v[k]);
    }).join(',') + '}';
  }
  function commitments(v, at, out) {
    if (v === null || typeof v !== 'object') return out;
    var keys = Object.keys(v);
    if (!Array.isArray(v) && keys.length === 1 && keys[0] === 'commitment' && typeof v.commitment === 'string') {
      out.push({ pointer: at, commitment: v.commitment });
      return out;
    }
    keys.forEach(function (k) { commitments(v[k], at + '/' + k.replace(/~/g, '~0').replace(/\//g, '~1'), out); });
    return out;
  }
  // Each commitment's state: 'opened', 'mismatch', 'withheld' (a decision withheld it: `withheld` names it) or
  // 'erased'. An opened value may hold commitments of its own (a person's name), opened at deeper pointers.
  function checkOpenings(body, openings, withheld) {
    function check(list) {
      return Promise.all(list.map(function (c) {
        var o = openings && openings[c.pointer];
        if (!o) return Promise.resolve([withheld && withheld[c.pointer] !== undefined ? 'withheld' : 'erased']);
        var key = fromB64(o.opening);
        if (key.length !== 32) return Promise.resolve(['mismatch']);
        return subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']).then(function (k) {
          return subtle.sign('HMAC', k, enc.encode(canonical(o.value)));
        }).then(function (mac) {
          if (toB64(new Uint8Array(mac)) !== c.commitment) return ['mismatch'];
          return check(commitments(o.value, c.pointer, [])).then(function (inner) { return ['opened'].concat(inner); });
        });
      })).then(function (states) { return [].concat.apply([], states); });
    }
    return check(commitments(body, '', []));
  }

  /**
   * Check a signed note (checkpoint) against the log's key and policy: the key's hash, the log's signature, the
   * witnesses' cosignatures and the quorum. Resolves to { name, keyHash, size, root, text, vouched }.
   */
  function checkCheckpoint(keyText, policyText, note) {
    var key = keyText.trim(), policy = parsePolicy(policyText), v = parseVkey(key, 1), text;
    if (policy.logs.length > 0 && policy.logs.indexOf(key) < 0) return Promise.reject(fail('the witness policy does not name the log’s key'));
    return sha256(enc.encode(v.name + '\n'), new Uint8Array([1]), v.pub)
      .then(function (h) {
        if (hex(h.subarray(0, 4)) !== v.hash) throw fail('the key hash does not match the key');
        if (note.indexOf('\n\n') < 0) throw fail('the checkpoint is not a signed note');
        text = note.slice(0, note.indexOf('\n\n') + 1);
        var sig = null;
        sigLines(note).forEach(function (l) {
          var s = /^\u2014 (\S+) (\S+)$/.exec(l);
          if (s && s[1] === v.name) {
            var b = fromB64(s[2]);
            if (b.length === 68 && hex(b.subarray(0, 4)) === v.hash) sig = b.subarray(4);
          }
        });
        if (!sig) throw fail('the checkpoint carries no signature by the published key');
        return ed25519(v.pub, sig, enc.encode(text));
      })
      .then(function (ok) {
        if (!ok) throw fail('the checkpoint’s signature does not verify');
        var lines = text.split('\n');
        if (lines[0] !== v.name) throw fail('the checkpoint is of another log');
        return cosigners(policy, note, text).then(function (vouched) {
          if (!quorumMet(policy, vouched)) {
            throw fail('the checkpoint is short of the witness policy’s quorum (' + (vouched.length ? 'only ' + vouched.join(', ') + ' cosigned it' : 'no witness cosigned it') + ')');
          }
          return { key: key, name: v.name, keyHash: v.hash, size: Number(lines[1]), root: fromB64(lines[2]), text: text, vouched: vouched };
        });
      });
  }

  /** Whether `entry` (its bytes) at `index` is in the tree of `size` entries with `root`, by the proof's hashes. */
  function included(entry, index, size, rootHash, hashes) {
    if (!(index >= 0 && index < size)) return Promise.resolve(false);
    return sha256(new Uint8Array([0]), entry).then(function (leaf) {
      return walk(index, size - 1, leaf, hashes, 0);
    }).then(function (computed) { return Boolean(computed) && equal(computed, rootHash); });
  }

  root.CredenceLogCore = {
    supported: Boolean(subtle && enc),
    fromB64: fromB64, toB64: toB64, hex: hex, equal: equal, sha256: sha256, node: node, fail: fail,
    parseVkey: parseVkey, parsePolicy: parsePolicy, quorumMet: quorumMet, cosigners: cosigners,
    walk: walk, consistent: consistent, checkOpenings: checkOpenings,
    checkCheckpoint: checkCheckpoint, included: included,
  };
})(typeof self !== 'undefined' ? self : this);
