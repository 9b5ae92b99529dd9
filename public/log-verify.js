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
// (/assets/log-verify.js, with public/log-core.js in front of it: the checks it shares with the browser extension),
// never inline.
/* global TextDecoder, localStorage, Blob, self */
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
  var WIDTH = 256;
  var core = self.CredenceLogCore;
  var fromB64 = core.fromB64, toB64 = core.toB64, equal = core.equal, sha256 = core.sha256, node = core.node, fail = core.fail;
  var walk = core.walk, consistent = core.consistent, checkOpenings = core.checkOpenings;

  function say(text, state) {
    status.textContent = text;
    box.setAttribute('data-log-state', state);
  }
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
      var withheld = {};
      try { withheld = JSON.parse(shownEntry.getAttribute('data-log-withheld') || '{}'); } catch { withheld = {}; }
      var leaf = shownEntry.getAttribute('data-log-leaf-hash');
      return Promise.resolve({ index: index, body: shownEntry.textContent, openings: openings, withheld: withheld, leaf_hash: leaf || undefined });
    }
    return get('/entries?start=' + index + '&limit=1', 'application/json').then(function (r) { return r.data[0]; });
  }
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
      leaf: function (i) { return subtree(0, i); },
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

  function check(attempt) {
    if (!core.supported) {
      say('Your browser cannot check this proof (no WebCrypto); the links below let you check it elsewhere.', 'unsupported');
      return;
    }
    say('Checking the proof in your browser…', 'checking');
    var key, note, listed, v, size, root, tiles, bytes, proof, vouched, opened;
    Promise.all([get('/key', 'text/plain'), get('/policy', 'text/plain'), get('/checkpoint', 'text/plain'), entry()])
      .then(function (r) {
        note = r[2]; listed = r[3];
        return core.checkCheckpoint(r[0], r[1], note);
      })
      .then(function (c) {
        key = c.key; v = { name: c.name, hash: c.keyHash }; size = c.size; root = c.root; vouched = c.vouched;
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
        // Clear text a decision withheld from an entry written before free text was committed to: the bytes served
        // are not the entry's, so its leaf is the hash tiles' one (the signed root vouches for the tiles).
        var leaf = listed.leaf_hash
          ? tiles.leaf(index).then(function (h) {
            if (toB64(h) !== listed.leaf_hash) throw fail('the leaf hash served beside entry ' + index + ' is not the hash tiles’ one');
            return h;
          })
          : sha256(new Uint8Array([0]), bytes);
        return Promise.all([leaf, checkOpenings(body, listed.openings, listed.withheld)]);
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
        var removed = Object.keys(listed.withheld || {}).length;
        say('Verified in your browser: entry ' + index + ' is in the log’s signed checkpoint of ' + size + ' entries (key ' + v.hash + ')' +
          (vouched.length ? ', cosigned by the witnesses ' + vouched.join(', ') : '') + '.' +
          (erased ? ' The person’s details were erased at their request; the entry still verifies.' : '') +
          (removed ? ' Some of its text was removed after a decision; the entry still verifies.' : ''), 'verified');
        // The key's name is the log's origin and a hash a person cannot read: the origin alone says who signed.
        if (details) details.textContent = 'Signed by the log at ' + key.split('+')[0] + '.';
        // A proof that travels carries the entry's bytes: there is none for an entry whose clear text was withheld.
        if (download && !listed.leaf_hash) {
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
