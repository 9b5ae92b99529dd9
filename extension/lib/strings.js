// The extension's own words in the embed's four languages: the catalog's `extension.*` messages, compiled by the build
// into lib/messages.js (src/i18n/catalogs; docs/decisions/message-catalogs.md). The record's words (roles, notices,
// standings) are the embed's (lib/embed-words.js, written by the build from the same catalog). The browser's language
// picks one; anything else is English.
(function (root) {
  'use strict';
  var MESSAGES = root.CredenceMessages || {};
  var PLAIN = ['name', 'noRecord', 'withheldLink', 'unlisted', 'off', 'unsupported', 'unavailable', 'authors', 'reviews', 'factChecks',
    'corrections', 'other', 'panels', 'publishedBy', 'fullRecord', 'report', 'proofLink', 'checking', 'notLogged', 'turnOff', 'turnOn',
    'options', 'optionsTitle', 'service', 'serviceHint', 'save', 'saved', 'invalidService', 'offSites', 'noOffSites', 'remove'];

  /** The words the popup and options read, as they call them: plain text, or a function of what the message says. */
  function stringsOf(m) {
    var t = {};
    PLAIN.forEach(function (k) { t[k] = m['extension.' + k]; });
    t.contributions = function (n) { return m['extension.contributions']({ count: n }); };
    t.withheld = function (name) { return m['extension.withheld']({ name: name }); };
    t.verified = function (names) { return m['extension.verified']({ count: names.length, names: names.join(', ') }); };
    t.notVerified = function (why) { return m['extension.notVerified']({ why: why }); };
    t.couldNotCheck = function (why) { return m['extension.couldNotCheck']({ why: why }); };
    return t;
  }

  /** `de-AT` → `de`; anything unsupported → `en`. */
  function pickLang(input) {
    var base = String(input || '').trim().toLowerCase().split(/[-_]/)[0];
    return Object.prototype.hasOwnProperty.call(MESSAGES, base) ? base : 'en';
  }

  var lang = pickLang(typeof navigator !== 'undefined' ? navigator.language : 'en');
  var embed = (root.CredenceEmbedWords || {})[lang] || (root.CredenceEmbedWords || {}).en || { roles: {}, notices: {}, standings: {} };

  root.CredenceStrings = { lang: lang, t: stringsOf(MESSAGES[lang] || {}), embed: embed, pickLang: pickLang };
})(typeof self !== 'undefined' ? self : this);
