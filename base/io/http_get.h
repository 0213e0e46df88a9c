// One bounded HTTP(S) GET: what a reader of a remote source (Prometheus' API) needs, and no more.
// TLS goes through the CA store the system trusts (libcurl's default) or a CA file a farm names;
// credentials come from files, never from the command line (where `ps` shows them).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace rtgate::io {

struct HttpAuth {
  std::string bearer_token;                // "Authorization: Bearer ..." when not empty
  std::string basic_user, basic_password;  // basic auth when the user is not empty
  std::string ca_file;  // PEM CA certificates to trust instead of the system's, when not empty
};

// Reads credentials from a file: a bearer token (the file's first line) or, with basic, a
// "user:password" line. nullopt with *why naming the file when it cannot be read or is empty.
std::optional<HttpAuth> read_auth_file(const std::string& path, bool basic, std::string* why);

struct HttpReply {
  long status = 0;
  std::string body;
};

// GET `url`, the reply's body bounded by `max_bytes`; connection in 10 s, the whole in
// `timeout_s`. nullopt with a one-line *why on a transport error, a body past the bound, or a
// timeout; any HTTP status comes back as a reply.
std::optional<HttpReply> http_get(const std::string& url, const HttpAuth& auth,
                                  std::size_t max_bytes, long timeout_s, std::string* why);

// `s` escaped for a URL's query (RFC 3986 unreserved characters kept).
std::string url_encode(const std::string& s);

}  // namespace rtgate::io
