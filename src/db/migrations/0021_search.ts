// Full-text search over the public record: pages (title, URL), people (name, username), publications (name, slug)
// and panel statements (question, topic of the issued version). One index over the four, so one query ranks them
// together: SQLite's FTS5 (`search_index`, rowid = id × 4 + kind) or a PostgreSQL `tsvector` table with a GIN index
// (`search_documents`, keyed by kind and id). Kinds: 0 page, 1 person, 2 publication, 3 panel statement.
//
// Triggers keep it: each change to a source row rewrites its document in the same statement's transaction, so the
// index is right whatever process, verb or job made the change, and nothing outside the database (no cache, no
// Redis) is needed for it. Only public fields are indexed, and only public people: an account is in the index while
// its address is confirmed and it is not the shared former contributor; its e-mail never is. Deleting an account
// (erasure) deletes its document; FTS5 runs in `secure-delete` mode so its tokens leave the index's pages too.
//
// Words are split on anything but letters and digits (so a URL's path gives its words), lower-cased, and matched by
// prefix at query time (domain/search/). SQLite also folds diacritics; PostgreSQL's `simple` configuration does not.
import { sql } from 'kysely';
import type { Dialect } from '../client.js';
import type { AnyDb } from './helpers.js';

const FORMER = 'former-contributor';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  for (const statement of dialect === 'postgres' ? postgres() : sqlite()) await sql.raw(statement).execute(db);
}

function sqlite(): string[] {
  const replace = (rowid: string, title: string, extra: string, when = '') =>
    `INSERT INTO search_index (rowid, title, extra) SELECT ${rowid}, ${title}, ${extra}${when ? ` WHERE ${when}` : ''};`;
  const drop = (rowid: string) => `DELETE FROM search_index WHERE rowid = ${rowid};`;
  const visible = (row: string) => `${row}.email_confirmed_at IS NOT NULL AND ${row}.username <> '${FORMER}'`;
  const currentPanel = (statement: string) =>
    `INSERT INTO search_index (rowid, title, extra) SELECT v.statement_id * 4 + 3, v.question, v.topic FROM panel_versions v ` +
    `WHERE v.statement_id = ${statement} AND v.status = 'issued' ORDER BY v.version DESC LIMIT 1;`;
  return [
    `CREATE VIRTUAL TABLE search_index USING fts5(title, extra, tokenize = 'unicode61 remove_diacritics 2')`,
    // A deleted document's tokens are removed from the index's pages, not only marked deleted (erasure).
    `INSERT INTO search_index (search_index, rank) VALUES ('secure-delete', 1)`,

    `CREATE TRIGGER search_pages_insert AFTER INSERT ON pages BEGIN ${replace('NEW.id * 4', 'NEW.title', 'NEW.url')} END`,
    `CREATE TRIGGER search_pages_update AFTER UPDATE OF title, url ON pages BEGIN ${drop('OLD.id * 4')} ${replace('NEW.id * 4', 'NEW.title', 'NEW.url')} END`,
    `CREATE TRIGGER search_pages_delete AFTER DELETE ON pages BEGIN ${drop('OLD.id * 4')} END`,

    `CREATE TRIGGER search_accounts_insert AFTER INSERT ON accounts BEGIN ${replace('NEW.id * 4 + 1', 'NEW.name', 'NEW.username', visible('NEW'))} END`,
    `CREATE TRIGGER search_accounts_update AFTER UPDATE OF name, username, email_confirmed_at ON accounts BEGIN ${drop('OLD.id * 4 + 1')} ${replace('NEW.id * 4 + 1', 'NEW.name', 'NEW.username', visible('NEW'))} END`,
    `CREATE TRIGGER search_accounts_delete AFTER DELETE ON accounts BEGIN ${drop('OLD.id * 4 + 1')} END`,

    `CREATE TRIGGER search_publishers_insert AFTER INSERT ON publishers BEGIN ${replace('NEW.id * 4 + 2', 'NEW.name', 'NEW.slug')} END`,
    `CREATE TRIGGER search_publishers_update AFTER UPDATE OF name, slug ON publishers BEGIN ${drop('OLD.id * 4 + 2')} ${replace('NEW.id * 4 + 2', 'NEW.name', 'NEW.slug')} END`,
    `CREATE TRIGGER search_publishers_delete AFTER DELETE ON publishers BEGIN ${drop('OLD.id * 4 + 2')} END`,

    // A statement is found by its issued version's question and topic: a new version or a change of status
    // (superseded) rewrites it.
    `CREATE TRIGGER search_panels_insert AFTER INSERT ON panel_versions BEGIN ${drop('NEW.statement_id * 4 + 3')} ${currentPanel('NEW.statement_id')} END`,
    `CREATE TRIGGER search_panels_update AFTER UPDATE OF status, question, topic ON panel_versions BEGIN ${drop('NEW.statement_id * 4 + 3')} ${currentPanel('NEW.statement_id')} END`,
    `CREATE TRIGGER search_panels_delete AFTER DELETE ON panel_statements BEGIN ${drop('OLD.id * 4 + 3')} END`,

    replace('id * 4', 'title', 'url FROM pages'),
    replace('id * 4 + 1', 'name', 'username FROM accounts a', visible('a')),
    replace('id * 4 + 2', 'name', 'slug FROM publishers'),
    `INSERT INTO search_index (rowid, title, extra) SELECT v.statement_id * 4 + 3, v.question, v.topic FROM panel_versions v ` +
      `WHERE v.status = 'issued' AND v.version = (SELECT max(w.version) FROM panel_versions w WHERE w.statement_id = v.statement_id AND w.status = 'issued')`,
  ];
}

function postgres(): string[] {
  const sync = (name: string, table: string, kind: number, title: string, extra: string, when = 'true') => [
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM search_documents WHERE kind = ${kind} AND ref = OLD.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND (${when}) THEN
    INSERT INTO search_documents (kind, ref, document) VALUES (${kind}, NEW.id, search_document(${title}, ${extra}));
  END IF;
  RETURN NULL;
END $$`,
    `CREATE TRIGGER ${name} AFTER INSERT OR DELETE OR UPDATE OF ${title.replace(/NEW\./g, '')}, ${extra.replace(/NEW\./g, '')}${
      table === 'accounts' ? ', email_confirmed_at' : ''
    } ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  ];
  return [
    `CREATE TABLE search_documents (kind smallint NOT NULL, ref integer NOT NULL, document tsvector NOT NULL, PRIMARY KEY (kind, ref))`,
    `CREATE INDEX search_documents_document ON search_documents USING gin (document)`,
    // Words: punctuation separates them too (a URL's path gives its words), as in FTS5's unicode61; the parser of
    // the `simple` configuration splits the rest.
    `CREATE FUNCTION search_words(text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT regexp_replace(coalesce($1, ''), '[[:punct:]]+', ' ', 'g') $$`,
    `CREATE FUNCTION search_document(title text, extra text) RETURNS tsvector LANGUAGE sql IMMUTABLE AS $$
SELECT setweight(to_tsvector('simple'::regconfig, search_words(title)), 'A') || setweight(to_tsvector('simple'::regconfig, search_words(extra)), 'B') $$`,
    ...sync('search_pages_sync', 'pages', 0, 'NEW.title', 'NEW.url'),
    ...sync('search_accounts_sync', 'accounts', 1, 'NEW.name', 'NEW.username', `NEW.email_confirmed_at IS NOT NULL AND NEW.username <> '${FORMER}'`),
    ...sync('search_publishers_sync', 'publishers', 2, 'NEW.name', 'NEW.slug'),
    `CREATE FUNCTION search_panels_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'panel_statements' THEN
    DELETE FROM search_documents WHERE kind = 3 AND ref = OLD.id;
    RETURN NULL;
  END IF;
  DELETE FROM search_documents WHERE kind = 3 AND ref = NEW.statement_id;
  INSERT INTO search_documents (kind, ref, document)
    SELECT 3, v.statement_id, search_document(v.question, v.topic) FROM panel_versions v
    WHERE v.statement_id = NEW.statement_id AND v.status = 'issued' ORDER BY v.version DESC LIMIT 1;
  RETURN NULL;
END $$`,
    `CREATE TRIGGER search_panels_sync AFTER INSERT OR UPDATE OF status, question, topic ON panel_versions FOR EACH ROW EXECUTE FUNCTION search_panels_sync()`,
    `CREATE TRIGGER search_panel_statements_sync AFTER DELETE ON panel_statements FOR EACH ROW EXECUTE FUNCTION search_panels_sync()`,
    `INSERT INTO search_documents (kind, ref, document) SELECT 0, id, search_document(title, url) FROM pages`,
    `INSERT INTO search_documents (kind, ref, document) SELECT 1, id, search_document(name, username) FROM accounts WHERE email_confirmed_at IS NOT NULL AND username <> '${FORMER}'`,
    `INSERT INTO search_documents (kind, ref, document) SELECT 2, id, search_document(name, slug) FROM publishers`,
    `INSERT INTO search_documents (kind, ref, document)
SELECT DISTINCT ON (v.statement_id) 3, v.statement_id, search_document(v.question, v.topic) FROM panel_versions v WHERE v.status = 'issued' ORDER BY v.statement_id, v.version DESC`,
  ];
}
