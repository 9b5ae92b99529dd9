// Checks a proof page's transparency-log entry in the reader's browser, trusting nothing in the page's HTML:
// it fetches the log's published key, the entry's bytes and an inclusion proof with its signed checkpoint from
// the public API, then with WebCrypto (1) checks the key's hash, (2) verifies the checkpoint's Ed25519 signature,
// (3) hashes the entry (SHA-256 of 0x00 || bytes) and walks the proof up to the signed root (RFC 9162 §2.1.3.2).
// Served as a file (/assets/log-verify.js), never inline.
/* global TextEncoder, atob */
(function () {
  'use strict';
  var box = document.querySelector('[data-log-index]');
  if (!box) return;
  var status = box.querySelector('[data-log-status]');
  var details = box.querySelector('[data-log-details]');
  var index = Number(box.getAttribute('data-log-index'));
  var api = box.getAttribute('data-log-api') || '/v1/log';
  var subtle = window.crypto && window.crypto.subtle;
  var enc = new TextEncoder();

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
  function get(path, type) {
    return fetch(api + path, { headers: { accept: type }, credentials: 'omit', cache: 'no-store' }).then(function (r) {
      if (!r.ok) throw new Error(path + ' answered ' + r.status);
      return type === 'application/json' ? r.json() : r.text();
    });
  }

  // RFC 9162 §2.1.3.2, one step per proof hash.
  function walk(fn, sn, r, hashes, i) {
    if (i === hashes.length) return Promise.resolve(sn === 0 ? r : null);
    if (sn === 0) return Promise.resolve(null);
    var p = hashes[i];
    var step;
    if (fn % 2 === 1 || fn === sn) {
      step = sha256(new Uint8Array([1]), p, r).then(function (h) {
        while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
        return h;
      });
    } else {
      step = sha256(new Uint8Array([1]), r, p);
    }
    return step.then(function (h) { return walk(Math.floor(fn / 2), Math.floor(sn / 2), h, hashes, i + 1); });
  }

  function check(attempt) {
    if (!subtle || typeof TextEncoder === 'undefined') {
      say('Your browser cannot check this proof (no WebCrypto); the links below let you check it elsewhere.', 'unsupported');
      return;
    }
    say('Checking the proof in your browser…', 'checking');
    var key, note, proof, entry, name, keyHash, pub, text, root, size;
    Promise.all([get('/key', 'text/plain'), get('/proof/inclusion?index=' + index, 'application/json'), get('/entries?start=' + index + '&limit=1', 'application/json')])
      .then(function (r) {
        key = r[0].trim(); proof = r[1]; entry = r[2].data[0];
        note = proof.checkpoint;
        var m = /^([^+\s]+)\+([0-9a-f]{8})\+(\S+)$/.exec(key);
        if (!m) throw new Error('the published key is malformed');
        name = m[1]; keyHash = m[2];
        var raw = fromB64(m[3]);
        if (raw.length !== 33 || raw[0] !== 1) throw new Error('the published key is not an Ed25519 key');
        pub = raw.subarray(1);
        if (!note) throw new Error('no signed checkpoint came with the proof');
        if (!entry || entry.index !== index) throw new Error('the log did not return entry ' + index);
        // The entry must be about what this page shows, or a valid proof of another entry could stand in for it.
        var subject = box.getAttribute('data-log-contribution');
        if (subject) {
          var body = JSON.parse(entry.body);
          if (!body.contribution || String(body.contribution.id) !== subject) throw new Error('entry ' + index + ' is not about this contribution');
        }
        return sha256(enc.encode(name + '\n'), new Uint8Array([1]), pub);
      })
      .then(function (h) {
        if (hex(h.subarray(0, 4)) !== keyHash) throw new Error('the key hash does not match the key');
        var cut = note.indexOf('\n\n');
        text = note.slice(0, cut + 1);
        var lines = note.slice(cut + 2).split('\n');
        var sig = null;
        for (var i = 0; i < lines.length; i++) {
          var s = /^\u2014 (\S+) (\S+)$/.exec(lines[i]);
          if (s && s[1] === name) {
            var b = fromB64(s[2]);
            if (b.length === 68 && hex(b.subarray(0, 4)) === keyHash) sig = b.subarray(4);
          }
        }
        if (!sig) throw new Error('the checkpoint carries no signature by the published key');
        return subtle.importKey('raw', pub, { name: 'Ed25519' }, false, ['verify']).then(function (k) {
          return subtle.verify({ name: 'Ed25519' }, k, sig, enc.encode(text));
        });
      })
      .then(function (ok) {
        if (!ok) throw new Error('the checkpoint’s signature does not verify');
        var lines = text.split('\n');
        size = Number(lines[1]);
        root = fromB64(lines[2]);
        if (lines[0] !== name || !(size > index) || proof.tree_size !== size) throw new Error('the checkpoint does not match the proof');
        return sha256(new Uint8Array([0]), enc.encode(entry.body));
      })
      .then(function (leaf) {
        return walk(index, size - 1, leaf, proof.hashes.map(fromB64), 0);
      })
      .then(function (computed) {
        if (!computed || !equal(computed, root)) throw new Error('the entry and its proof do not lead to the signed root');
        say('Verified in your browser: entry ' + index + ' is in the log’s signed checkpoint of ' + size + ' entries (key ' + keyHash + ').', 'verified');
        if (details) {
          details.textContent = 'Signed by ' + key + '. Root ' + hex(root) + '. Entry bytes: ' + entry.body;
        }
      })
      .catch(function (err) {
        // The sequencer adds new entries within seconds: a fresh entry may not be in a checkpoint yet.
        if (attempt < 5 && /answered 400/.test(String(err && err.message))) {
          say('This entry is not in a signed checkpoint yet; checking again in a few seconds…', 'pending');
          setTimeout(function () { check(attempt + 1); }, 2000);
          return;
        }
        say('NOT verified: ' + (err && err.message ? err.message : String(err)) + '.', 'failed');
      });
  }
  check(0);
})();
