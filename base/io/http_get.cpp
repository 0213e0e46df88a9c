#include "base/io/http_get.h"

#include <curl/curl.h>

#include <cctype>
#include <memory>

#include "base/io/input_limit.h"

namespace rtgate::io {
namespace {

struct Sink {
  std::string* body;
  std::size_t max;
  bool overflow = false;
};

std::size_t keep(char* data, std::size_t size, std::size_t n, void* user) {
  auto* s = static_cast<Sink*>(user);
  if (s->body->size() + size * n > s->max) {
    s->overflow = true;
    return 0;  // libcurl ends the transfer with CURLE_WRITE_ERROR
  }
  s->body->append(data, size * n);
  return size * n;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

}  // namespace

std::optional<HttpAuth> read_auth_file(const std::string& path, bool basic, std::string* why) {
  const std::optional<std::string> text = read_bounded(path, 64 * 1024, why);
  if (!text) {
    *why = path + ": " + *why;
    return std::nullopt;
  }
  const std::string line = first_line(*text);
  HttpAuth auth;
  if (basic) {
    const std::size_t colon = line.find(':');
    if (colon == 0 || colon == std::string::npos) {
      *why = path + ": not a user:password line";
      return std::nullopt;
    }
    auth.basic_user = line.substr(0, colon);
    auth.basic_password = line.substr(colon + 1);
  } else {
    if (line.empty()) {
      *why = path + ": empty";
      return std::nullopt;
    }
    auth.bearer_token = line;
  }
  return auth;
}

std::optional<HttpReply> http_get(const std::string& url, const HttpAuth& auth,
                                  std::size_t max_bytes, long timeout_s, std::string* why) {
  const std::unique_ptr<CURL, void (*)(CURL*)> h(curl_easy_init(), &curl_easy_cleanup);
  if (!h) {
    *why = "cannot start an HTTP client";
    return std::nullopt;
  }
  HttpReply reply;
  Sink sink{&reply.body, max_bytes};
  curl_slist* headers = nullptr;
  const std::string bearer = "Authorization: Bearer " + auth.bearer_token;
  if (!auth.bearer_token.empty()) headers = curl_slist_append(headers, bearer.c_str());
  const std::unique_ptr<curl_slist, void (*)(curl_slist*)> keep_headers(headers,
                                                                        &curl_slist_free_all);
  CURL* c = h.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout_s);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // gzip when the server offers it
  if (headers != nullptr) curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  if (!auth.basic_user.empty()) {
    curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(c, CURLOPT_USERNAME, auth.basic_user.c_str());
    curl_easy_setopt(c, CURLOPT_PASSWORD, auth.basic_password.c_str());
  }
  if (!auth.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, auth.ca_file.c_str());
  char detail[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, detail);
  const CURLcode rc = curl_easy_perform(c);
  if (sink.overflow) {
    *why = "the reply is larger than " + std::to_string(max_bytes >> 20) + " MiB (--max-input)";
    return std::nullopt;
  }
  if (rc != CURLE_OK) {
    // The buffer says which certificate or host; the code's text only what kind of failure.
    *why = detail[0] != '\0' ? detail : curl_easy_strerror(rc);
    return std::nullopt;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

std::string url_encode(const std::string& s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace rtgate::io
