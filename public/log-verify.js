// Checks a proof page's transparency-log entry in the reader's browser, trusting nothing in the page's HTML. From the
// log's public files only (its key, its C2SP tlog-policy, its checkpoint with witnesses' cosignatures, its
// tlog-tiles hash tiles and entry bundles, and the openings served beside entries), with WebCrypto:
// (1) checks the key's hash and the checkpoint's Ed25519 signature, (2) checks the witnesses' cosignature/v1 lines
// and that they meet the policy's quorum, naming who vouched, (3) reads the entry's bytes from its bundle, computes
// the inclusion proof from hash tiles and walks it to the signed root (RFC 9162 §2.1.3.2), (4) checks each salted
// commitment of the entry against its opening (an erased one is said, not failed), and (5) remembers the checkpoint
// in this browser and checks the next one extends it (consistency from tiles), so a log that shows this reader
// two different trees (a fork) is caught. The entry's bytes and openings shown on the page are only a starting point:
// the bytes must equal the bundle's, which the signed root vouches for, and the openings must open the commitments.
// The log's files are static reads that spend no rate budget; a check that could not run (the network, a 429, a 5xx)
// says so and tries again later, and only a proof that fails says NOT verified. Served as a file
// (/assets/log-verify.js), never inline.
/* global TextEncoder, TextDecoder, atob, btoa, localStorage, Blob */
(function () {
  'use strict';
  var box = document.querySelector('[data-log-index]');
  if (!box) return;
  var status = box.querySelector('[data-log-status]');
  var details = box.querySelector('[data-log-details]');
  var download = box.querySelector('[data-log-download]');
  var index = Number(box.getAttribute('data-log-index'));
  var api = box.getAttribute('data-log-api') || '/v1/log';
  var shownEntry = box.querySelector('[data-log-entry]');
  var subtle = window.crypto && window.crypto.subtle;
  var enc = new TextEncoder();
  var WIDTH = 256;

  function say(text, state) {
    status.textContent = text;
    box.setAttribute('data-log-state', state);
  }
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
  // A check that could not run (not a proof that failed): the network, a 429 or a 5xx. `wait`: the answer's
  // Retry-After, in seconds, when it gave one.
  function unavailable(message, wait) { var e = new Error(message); e.transient = true; e.wait = wait; return e; }
  function get(path, type) {
    // The log's files are cacheable (full tiles forever): the browser's cache answers what it has, but for the
    // checkpoint, which is asked for anew each time (it grows and gathers cosignatures).
    var fresh = path === '/checkpoint' ? 'no-cache' : 'default';
    return fetch(api + path, { headers: { accept: type }, credentials: 'omit', cache: fresh }).then(function (r) {
      if (r.status === 429 || r.status >= 500) throw unavailable(path + ' answered ' + r.status, Number(r.headers.get('retry-after')) || 0);
      if (!r.ok) throw new Error(path + ' answered ' + r.status);
      if (type === 'application/json') return r.json();
      if (type === 'application/octet-stream') return r.arrayBuffer().then(function (b) { return new Uint8Array(b); });
      return r.text();
    }, function () {
      throw unavailable('the log could not be reached');
    });
  }
  // The entry as the page shows it (its bytes, and the openings of its commitments), else as the log serves it.
  function entry() {
    if (shownEntry) {
      var openings = {};
      try { openings = JSON.parse(shownEntry.getAttribute('data-log-openings') || '{}'); } catch { openings = {}; }
      return Promise.resolve({ index: index, body: shownEntry.textContent, openings: openings });
    }
    return get('/entries?start=' + index + '&limit=1', 'application/json').then(function (r) { return r.data[0]; });
  }
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

  // --- tlog-tiles: hashes of complete subtrees from tiles, for the tree of `size` entries ---
  function indexPath(n) {
    var parts = [];
    do { parts.unshift(('00' + (n % 1000)).slice(-3)); n = Math.floor(n / 1000); } while (n > 0);
    return parts.map(function (p, i) { return i < parts.length - 1 ? 'x' + p : p; }).join('/');
  }
  function Tiles(size) {
    var cache = {};
    function tile(level, n) {
      var width = Math.min(WIDTH, Math.floor(size / Math.pow(WIDTH, level)) - n * WIDTH);
      var path = '/tile/' + level + '/' + indexPath(n) + (width < WIDTH ? '.p/' + width : '');
      if (!cache[path]) {
        cache[path] = get(path, 'application/octet-stream').then(function (b) {
          if (b.length !== width * 32) throw fail('the tile ' + path + ' has the wrong length');
          return b;
        });
      }
      return cache[path];
    }
    // The hash of the complete subtree (level, i): a tile hash, or the root of a run of them.
    function subtree(level, i) {
      var tl = Math.floor(level / 8), sub = level - tl * 8, first = i * Math.pow(2, sub);
      return tile(tl, Math.floor(first / WIDTH)).then(function (b) {
        var row = [];
        for (var k = 0; k < Math.pow(2, sub); k++) {
          var at = (first % WIDTH + k) * 32;
          if (at + 32 > b.length) throw fail('the tiles lack a node of the tree');
          row.push(b.subarray(at, at + 32));
        }
        function up(r) {
          if (r.length === 1) return Promise.resolve(r[0]);
          var next = [];
          for (var j = 0; j < r.length; j += 2) next.push(node(r[j], r[j + 1]));
          return Promise.all(next).then(up);
        }
        return up(row);
      });
    }
    // MTH(D[lo:hi]): the fold of its complete subtrees, largest first.
    function range(lo, hi) {
      var parts = [], at = lo;
      while (at < hi) {
        var level = 0;
        while (at % Math.pow(2, level + 1) === 0 && at + Math.pow(2, level + 1) <= hi) level++;
        parts.push(subtree(level, at / Math.pow(2, level)));
        at += Math.pow(2, level);
      }
      return Promise.all(parts).then(function (h) {
        var acc = Promise.resolve(h[h.length - 1]);
        for (var k = h.length - 2; k >= 0; k--) {
          (function (left) { acc = acc.then(function (right) { return node(left, right); }); })(h[k]);
        }
        return acc;
      });
    }
    function split(n) { var k = 1; while (k * 2 < n) k *= 2; return k; }
    return {
      inclusion: function (m) {
        var ranges = [];
        (function path(lo, hi) {
          if (hi - lo <= 1) return;
          var k = split(hi - lo);
          if (m < lo + k) { path(lo, lo + k); ranges.push([lo + k, hi]); } else { path(lo + k, hi); ranges.push([lo, lo + k]); }
        })(0, size);
        return Promise.all(ranges.map(function (r) { return range(r[0], r[1]); }));
      },
      consistency: function (m) {
        var ranges = [];
        if (m === 0 || m === size) return Promise.resolve([]);
        (function sub(mm, lo, hi, b) {
          var n = hi - lo;
          if (mm === n) { if (!b) ranges.push([lo, hi]); return; }
          var k = split(n);
          if (mm <= k) { sub(mm, lo, lo + k, b); ranges.push([lo + k, hi]); } else { sub(mm - k, lo + k, hi, false); ranges.push([lo, lo + k]); }
        })(m, 0, size, true);
        return Promise.all(ranges.map(function (r) { return range(r[0], r[1]); }));
      },
      bundleEntry: function (i) {
        var n = Math.floor(i / WIDTH), width = Math.min(WIDTH, size - n * WIDTH);
        return get('/tile/entries/' + indexPath(n) + (width < WIDTH ? '.p/' + width : ''), 'application/octet-stream').then(function (b) {
          var at = 0, k = 0;
          while (at + 2 <= b.length) {
            var len = (b[at] << 8) | b[at + 1];
            if (k === i - n * WIDTH) return b.subarray(at + 2, at + 2 + len);
            at += 2 + len; k++;
          }
          throw fail('the entry bundle does not hold entry ' + i);
        });
      },
    };
  }

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
  function checkOpenings(body, openings) {
    var list = commitments(body, '', []);
    return Promise.all(list.map(function (c) {
      var o = openings && openings[c.pointer];
      if (!o) return Promise.resolve('erased');
      var key = fromB64(o.opening);
      if (key.length !== 32) return Promise.resolve('mismatch');
      return subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']).then(function (k) {
        return subtle.sign('HMAC', k, enc.encode(canonical(o.value)));
      }).then(function (mac) { return toB64(new Uint8Array(mac)) === c.commitment ? 'opened' : 'mismatch'; });
    }));
  }

  function check(attempt) {
    if (!subtle || typeof TextEncoder === 'undefined') {
      say('Your browser cannot check this proof (no WebCrypto); the links below let you check it elsewhere.', 'unsupported');
      return;
    }
    say('Checking the proof in your browser…', 'checking');
    var key, note, policy, listed, v, text, size, root, tiles, bytes, proof, vouched, opened;
    Promise.all([get('/key', 'text/plain'), get('/policy', 'text/plain'), get('/checkpoint', 'text/plain'), entry()])
      .then(function (r) {
        key = r[0].trim(); policy = parsePolicy(r[1]); note = r[2]; listed = r[3];
        v = parseVkey(key, 1);
        if (policy.logs.length > 0 && policy.logs.indexOf(key) < 0) throw fail('the witness policy does not name the log’s key');
        return sha256(enc.encode(v.name + '\n'), new Uint8Array([1]), v.pub);
      })
      .then(function (h) {
        if (hex(h.subarray(0, 4)) !== v.hash) throw fail('the key hash does not match the key');
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
        size = Number(lines[1]);
        root = fromB64(lines[2]);
        if (lines[0] !== v.name) throw fail('the checkpoint is of another log');
        return cosigners(policy, note, text);
      })
      .then(function (names) {
        vouched = names;
        if (!quorumMet(policy, vouched)) {
          throw fail('the checkpoint is short of the witness policy’s quorum (' + (vouched.length ? 'only ' + vouched.join(', ') + ' cosigned it' : 'no witness cosigned it') + ')');
        }
        tiles = Tiles(size);
        // What this browser saw before: the log must extend it, or it showed two different trees (a fork).
        var store = 'credence-log:' + v.name, saved = null;
        try { saved = JSON.parse(localStorage.getItem(store) || 'null'); } catch { saved = null; }
        var prior = saved && typeof saved.size === 'number' && typeof saved.root === 'string' ? saved : null;
        var extends_ = Promise.resolve(true);
        if (prior && prior.size === size && prior.root !== toB64(root)) extends_ = Promise.resolve(false);
        else if (prior && prior.size < size) {
          extends_ = tiles.consistency(prior.size).then(function (p) { return consistent(prior.size, size, p, fromB64(prior.root), root); });
        }
        return extends_.then(function (ok) {
          if (!ok) throw fail('the log is FORKED: it showed this browser a checkpoint of ' + prior.size + ' entries that this one of ' + size + ' does not extend');
          if (!prior || prior.size <= size) {
            try { localStorage.setItem(store, JSON.stringify({ size: size, root: toB64(root) })); } catch { /* storage off */ }
          }
        });
      })
      .then(function () {
        if (!(size > index)) throw new Error('pending');
        return Promise.all([tiles.bundleEntry(index), tiles.inclusion(index)]);
      })
      .then(function (r) {
        bytes = r[0]; proof = r[1];
        if (!listed || listed.index !== index || listed.body !== new TextDecoder().decode(bytes)) throw fail('the entry bundle and the log’s entry ' + index + ' disagree');
        var body = JSON.parse(listed.body);
        // The entry must be about what this page shows, or a valid proof of another entry could stand in for it.
        var subject = box.getAttribute('data-log-contribution');
        if (subject && (!body.contribution || String(body.contribution.id) !== subject)) throw fail('entry ' + index + ' is not about this contribution');
        return Promise.all([sha256(new Uint8Array([0]), bytes), checkOpenings(body, listed.openings)]);
      })
      .then(function (r) {
        opened = r[1];
        if (opened.indexOf('mismatch') >= 0) throw fail('a person’s details served beside the entry do not match the entry’s commitment');
        return walk(index, size - 1, r[0], proof, 0);
      })
      .then(function (computed) {
        if (!computed || !equal(computed, root)) throw fail('the entry and its proof do not lead to the signed root');
      })
      .then(function () {
        var erased = opened.filter(function (s) { return s === 'erased'; }).length;
        say('Verified in your browser: entry ' + index + ' is in the log’s signed checkpoint of ' + size + ' entries (key ' + v.hash + ')' +
          (vouched.length ? ', cosigned by the witnesses ' + vouched.join(', ') : '') + '.' +
          (erased ? ' The person’s details were erased at their request; the entry still verifies.' : ''), 'verified');
        if (details) details.textContent = 'Signed by ' + key + '. Root ' + hex(root) + '.';
        if (download) {
          var file = 'c2sp.org/tlog-proof@v1\nextra ' + toB64(bytes) + '\nindex ' + index + '\n' +
            proof.map(function (h) { return toB64(h) + '\n'; }).join('') + '\n' + note;
          download.setAttribute('href', URL.createObjectURL(new Blob([file], { type: 'text/plain' })));
          download.setAttribute('data-log-checked', 'true');
        }
      })
      .catch(function (err) {
        var message = err && err.message ? err.message : String(err);
        // The sequencer adds new entries within seconds, and witnesses cosign soon after: a fresh entry may not be
        // in a witnessed checkpoint yet.
        if (attempt < 5 && !(err && err.final) && (message === 'pending' || /answered 400/.test(message))) {
          say('This entry is not in a witnessed checkpoint yet; checking again in a few seconds…', 'pending');
          setTimeout(function () { check(attempt + 1); }, 2000);
          return;
        }
        // The check did not run: that says nothing about the proof. Again later, waiting longer each time.
        if (err && err.transient) {
          retries++;
          if (retries > MAX_RETRIES) {
            say('Could not check right now (' + message + '). The links below let you check it elsewhere.', 'unavailable');
            offerRetry();
            return;
          }
          var wait = Math.min(60, Math.max(err.wait || 0, Math.pow(2, retries)));
          say('Could not check right now (' + message + '); trying again in ' + wait + ' seconds…', 'unavailable');
          setTimeout(function () { check(attempt); }, wait * 1000);
          return;
        }
        say('NOT verified: ' + (message === 'pending' ? 'entry ' + index + ' is not in the log’s checkpoint' : message) + '.', 'failed');
      });
  }
  var retries = 0, MAX_RETRIES = 6;
  // After the last retry, the reader may ask for another check.
  function offerRetry() {
    var again = document.createElement('button');
    again.type = 'button';
    again.className = 'small secondary';
    again.textContent = 'Check again';
    again.setAttribute('data-log-retry', '');
    again.addEventListener('click', function () { again.remove(); retries = 0; check(0); });
    status.appendChild(document.createTextNode(' '));
    status.appendChild(again);
  }
  check(0);
})();
