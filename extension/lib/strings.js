// The extension's own words in the embed's four languages; the record's words (roles, notices, standings) come from
// the embed's (lib/embed-words.js, written by the build from src/surfaces/embed/i18n.ts). The browser's language
// picks one; anything else is English.
(function (root) {
  'use strict';
  var STRINGS = {
    en: {
      name: 'Credence',
      contributions: function (n) { return n === 1 ? '1 accepted contribution' : n + ' accepted contributions'; },
      noRecord: 'Credence has no record of this page.',
      unlisted: 'No publisher on Credence holds this site. Nothing was sent about it.',
      off: 'Credence is off for this site. Nothing is sent about it.',
      unsupported: 'Credence shows records of web pages (http and https) only.',
      unavailable: 'Credence could not be reached. Try again later.',
      authors: 'Authors', reviews: 'Reviews', factChecks: 'Fact checks', corrections: 'Corrections', other: 'Other work',
      panels: 'Cited by expert panels',
      publishedBy: 'Published by',
      fullRecord: 'See the full record',
      proofLink: 'Proof',
      checking: 'Checking the proof in your browser…',
      verified: function (names) { return 'Verified in your browser' + (names.length ? ', cosigned by ' + names.join(', ') : '') + '.'; },
      notVerified: function (why) { return 'NOT verified: ' + why + '.'; },
      couldNotCheck: function (why) { return 'Could not check the proof right now (' + why + '). This says nothing about the record.'; },
      notLogged: 'Some of this work is not in the public log yet; it will be checked once it is.',
      turnOff: 'Turn off for this site', turnOn: 'Turn on for this site', options: 'Settings',
      optionsTitle: 'Credence settings', service: 'Service address',
      serviceHint: 'The Credence service the extension asks (a self-hosted one, for example). Only its public, anonymous reads are used.',
      save: 'Save', saved: 'Saved.', invalidService: 'Enter an https:// address (http:// only for localhost).',
      offSites: 'Sites where Credence is off', noOffSites: 'None.', remove: 'Turn on again',
    },
    de: {
      name: 'Credence',
      contributions: function (n) { return n === 1 ? '1 angenommener Beitrag' : n + ' angenommene Beiträge'; },
      noRecord: 'Credence hat keinen Nachweis zu dieser Seite.',
      unlisted: 'Kein Herausgeber bei Credence hält diese Website. Es wurde nichts über sie gesendet.',
      off: 'Credence ist für diese Website aus. Es wird nichts über sie gesendet.',
      unsupported: 'Credence zeigt nur Nachweise zu Webseiten (http und https).',
      unavailable: 'Credence war nicht erreichbar. Bitte später erneut versuchen.',
      authors: 'Autor·innen', reviews: 'Begutachtungen', factChecks: 'Faktenchecks', corrections: 'Korrekturen', other: 'Weitere Arbeit',
      panels: 'Von Fachgremien zitiert',
      publishedBy: 'Herausgegeben von',
      fullRecord: 'Vollständigen Nachweis ansehen',
      proofLink: 'Beleg',
      checking: 'Der Beleg wird in Ihrem Browser geprüft …',
      verified: function (names) { return 'In Ihrem Browser geprüft' + (names.length ? ', mitsigniert von ' + names.join(', ') : '') + '.'; },
      notVerified: function (why) { return 'NICHT bestätigt: ' + why + '.'; },
      couldNotCheck: function (why) { return 'Der Beleg konnte gerade nicht geprüft werden (' + why + '). Das sagt nichts über den Nachweis.'; },
      notLogged: 'Ein Teil dieser Arbeit steht noch nicht im öffentlichen Protokoll; er wird geprüft, sobald er dort steht.',
      turnOff: 'Für diese Website ausschalten', turnOn: 'Für diese Website einschalten', options: 'Einstellungen',
      optionsTitle: 'Credence-Einstellungen', service: 'Adresse des Dienstes',
      serviceHint: 'Der Credence-Dienst, den die Erweiterung fragt (etwa ein selbst betriebener). Nur seine öffentlichen, anonymen Abfragen werden genutzt.',
      save: 'Speichern', saved: 'Gespeichert.', invalidService: 'Bitte eine https://-Adresse angeben (http:// nur für localhost).',
      offSites: 'Websites, auf denen Credence aus ist', noOffSites: 'Keine.', remove: 'Wieder einschalten',
    },
    fr: {
      name: 'Credence',
      contributions: function (n) { return n === 1 ? '1 contribution acceptée' : n + ' contributions acceptées'; },
      noRecord: 'Credence n’a pas d’historique pour cette page.',
      unlisted: 'Aucun éditeur sur Credence ne détient ce site. Rien n’a été envoyé à son sujet.',
      off: 'Credence est désactivé pour ce site. Rien n’est envoyé à son sujet.',
      unsupported: 'Credence ne montre que l’historique des pages web (http et https).',
      unavailable: 'Credence est injoignable. Réessayez plus tard.',
      authors: 'Auteurs', reviews: 'Relectures', factChecks: 'Vérifications', corrections: 'Corrections', other: 'Autres travaux',
      panels: 'Citée par des comités d’experts',
      publishedBy: 'Publié par',
      fullRecord: 'Voir l’historique complet',
      proofLink: 'Preuve',
      checking: 'Vérification de la preuve dans votre navigateur…',
      verified: function (names) { return 'Vérifié dans votre navigateur' + (names.length ? ', cosigné par ' + names.join(', ') : '') + '.'; },
      notVerified: function (why) { return 'NON vérifié : ' + why + '.'; },
      couldNotCheck: function (why) { return 'La preuve n’a pas pu être vérifiée pour l’instant (' + why + '). Cela ne dit rien de l’historique.'; },
      notLogged: 'Une partie de ce travail n’est pas encore dans le journal public ; elle sera vérifiée dès qu’elle y sera.',
      turnOff: 'Désactiver pour ce site', turnOn: 'Activer pour ce site', options: 'Réglages',
      optionsTitle: 'Réglages de Credence', service: 'Adresse du service',
      serviceHint: 'Le service Credence que l’extension interroge (un service auto-hébergé, par exemple). Seules ses lectures publiques et anonymes sont utilisées.',
      save: 'Enregistrer', saved: 'Enregistré.', invalidService: 'Saisissez une adresse https:// (http:// seulement pour localhost).',
      offSites: 'Sites où Credence est désactivé', noOffSites: 'Aucun.', remove: 'Réactiver',
    },
    es: {
      name: 'Credence',
      contributions: function (n) { return n === 1 ? '1 contribución aceptada' : n + ' contribuciones aceptadas'; },
      noRecord: 'Credence no tiene historial de esta página.',
      unlisted: 'Ningún editor en Credence tiene este sitio. No se envió nada sobre él.',
      off: 'Credence está desactivado en este sitio. No se envía nada sobre él.',
      unsupported: 'Credence solo muestra el historial de páginas web (http y https).',
      unavailable: 'No se pudo contactar con Credence. Inténtelo más tarde.',
      authors: 'Autoría', reviews: 'Revisiones', factChecks: 'Verificaciones', corrections: 'Correcciones', other: 'Otros trabajos',
      panels: 'Citada por paneles de expertos',
      publishedBy: 'Publicado por',
      fullRecord: 'Ver el historial completo',
      proofLink: 'Prueba',
      checking: 'Comprobando la prueba en su navegador…',
      verified: function (names) { return 'Verificado en su navegador' + (names.length ? ', cofirmado por ' + names.join(', ') : '') + '.'; },
      notVerified: function (why) { return 'NO verificado: ' + why + '.'; },
      couldNotCheck: function (why) { return 'No se pudo comprobar la prueba ahora (' + why + '). Esto no dice nada del historial.'; },
      notLogged: 'Parte de este trabajo aún no está en el registro público; se comprobará cuando lo esté.',
      turnOff: 'Desactivar en este sitio', turnOn: 'Activar en este sitio', options: 'Ajustes',
      optionsTitle: 'Ajustes de Credence', service: 'Dirección del servicio',
      serviceHint: 'El servicio Credence al que pregunta la extensión (uno propio, por ejemplo). Solo se usan sus lecturas públicas y anónimas.',
      save: 'Guardar', saved: 'Guardado.', invalidService: 'Escriba una dirección https:// (http:// solo para localhost).',
      offSites: 'Sitios donde Credence está desactivado', noOffSites: 'Ninguno.', remove: 'Activar de nuevo',
    },
  };

  /** `de-AT` → `de`; anything unsupported → `en`. */
  function pickLang(input) {
    var base = String(input || '').trim().toLowerCase().split(/[-_]/)[0];
    return Object.prototype.hasOwnProperty.call(STRINGS, base) ? base : 'en';
  }

  var lang = pickLang(typeof navigator !== 'undefined' ? navigator.language : 'en');
  var embed = (root.CredenceEmbedWords || {})[lang] || (root.CredenceEmbedWords || {}).en || { roles: {}, notices: {}, standings: {} };

  root.CredenceStrings = { lang: lang, t: STRINGS[lang], embed: embed, pickLang: pickLang };
})(typeof self !== 'undefined' ? self : this);
