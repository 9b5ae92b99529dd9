# The cache tier in front of Credence (docs/cache.md): Varnish 7 with varnish-modules' xkey, as Debian
# packages them (`apt-get install varnish varnish-modules`). `npm run cluster -- --cache` runs it with this file, the
# @@…@@ placeholders filled in; in production, fill them in by hand (or with a template) and run one or more nodes.
#
# What it keeps: only answers the service marks for it (an `xkey` header: the record cache's tags, digested), asked
# for without a credential. It keeps them until the purger (jobs/cache-purger.ts) purges one of their keys, or for
# their Surrogate-Control lifetime. While the service is down it serves what it has for their `stale-if-error`.
vcl 4.1;

import std;
import xkey;

backend credence {
  .host = "@@BACKEND_HOST@@";
  .port = "@@BACKEND_PORT@@";
  .connect_timeout = 1s;
  .first_byte_timeout = 30s;
  .between_bytes_timeout = 30s;
  # /readyz is 503 while the database is unreachable: Varnish then serves from grace (stale-if-error).
  .probe = {
    .url = "/readyz";
    .interval = 500ms;
    .timeout = 1s;
    .window = 3;
    .threshold = 2;
    .initial = 2;
  }
}

# Who may purge: the instances running the purger. Loopback here; in production, the instances' network.
acl purgers {
  "127.0.0.1";
  "::1";
  @@PURGERS@@
}

sub vcl_recv {
  if (req.method == "PURGE") {
    if (client.ip !~ purgers) {
      return (synth(403, "Forbidden"));
    }
    # The purger's "everything": it fell behind and cannot vouch for anything kept (a lurker-friendly ban).
    if (req.http.xkey-purge-all) {
      ban("obj.status != 0");
      return (synth(200, "Banned"));
    }
    if (!req.http.xkey-purge) {
      return (synth(400, "xkey-purge missing"));
    }
    # A hard purge: nothing purged is ever served again, not even from grace.
    set req.http.x-purged = xkey.purge(req.http.xkey-purge);
    return (synth(200, "Purged " + req.http.x-purged));
  }
  if (req.method != "GET" && req.method != "HEAD") {
    return (pass);
  }
  # A request with a credential is the caller's own: never answered from the cache nor kept in it (an API key, a
  # bearer token, the web session cookie). Other cookies say nothing to the service: dropped, so they cannot split
  # or bypass the cache.
  if (req.http.Authorization || req.http.X-API-Key || req.http.Cookie ~ "(^|;\s*)credence_session=") {
    return (pass);
  }
  unset req.http.Cookie;
  # The live change feed is a connection of the caller's own.
  if (req.http.Accept ~ "text/event-stream") {
    return (pipe);
  }
  # A kept answer past its lifetime is served only while the service is down (stale-if-error), never in place of a
  # fresh one (no stale-while-revalidate: a purge, or the lifetime, must be the end of an answer).
  if (std.healthy(req.backend_hint)) {
    set req.grace = 0s;
  }
  return (hash);
}

sub vcl_pipe {
  set bereq.http.Connection = "close";
}

sub vcl_pass {
  set req.http.x-cache = "pass";
}

sub vcl_backend_response {
  # Only what the service marked, without a credential, and not private.
  if (!beresp.http.xkey || beresp.http.Set-Cookie || beresp.http.Cache-Control ~ "(private|no-store)" || (beresp.status != 200 && beresp.status != 204)) {
    # Not kept; the next request for it is an ordinary miss that may be kept (hit-for-miss), for a moment only.
    set beresp.uncacheable = true;
    set beresp.ttl = 1s;
    return (deliver);
  }
  # Kept as long as the service says for this tier (Surrogate-Control), else its Cache-Control's max-age (builtin).
  if (beresp.http.Surrogate-Control ~ "max-age=[0-9]+") {
    set beresp.ttl = std.duration(regsub(beresp.http.Surrogate-Control, "^.*max-age=([0-9]+).*$", "\1") + "s", 0s);
  }
  if (beresp.http.Cache-Control ~ "stale-if-error=[0-9]+") {
    set beresp.grace = std.duration(regsub(beresp.http.Cache-Control, "^.*stale-if-error=([0-9]+).*$", "\1") + "s", 0s);
  } else {
    set beresp.grace = 0s;
  }
  # What was the first caller's own is not everyone's: its rate-limit budget, its request's id.
  unset beresp.http.RateLimit;
  unset beresp.http.RateLimit-Policy;
  unset beresp.http.X-Request-Id;
  return (deliver);
}

sub vcl_deliver {
  # The keys and the tier's lifetime are for this tier only.
  if (resp.http.xkey) {
    unset resp.http.xkey;
    unset resp.http.Surrogate-Control;
    # Kept current by purges, not by age: browsers count the Cache-Control max-age from now.
    unset resp.http.Age;
  }
  if (req.http.x-cache == "pass") {
    set resp.http.X-Cache = "pass";
  } else if (obj.hits > 0) {
    set resp.http.X-Cache = "hit";
  } else {
    set resp.http.X-Cache = "miss";
  }
  unset resp.http.Via;
}
