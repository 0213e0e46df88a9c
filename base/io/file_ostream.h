// A std::ostream over a C stream, so that a library that streams (nlohmann's `<<`) writes a
// large document straight to a FILE* the way the rest of the output goes, never into one string.
#pragma once

#include <cstdio>
#include <ostream>
#include <streambuf>

namespace rtgate {

class FileStreambuf : public std::streambuf {
 public:
  explicit FileStreambuf(std::FILE* f) : f_(f) {}

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    return std::fputc(c, f_) == EOF ? traits_type::eof() : c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    return static_cast<std::streamsize>(std::fwrite(s, 1, static_cast<std::size_t>(n), f_));
  }
  int sync() override { return std::fflush(f_) == 0 ? 0 : -1; }

 private:
  std::FILE* f_;
};

class FileOStream : public std::ostream {
 public:
  explicit FileOStream(std::FILE* f) : std::ostream(nullptr), buf_(f) { rdbuf(&buf_); }

 private:
  FileStreambuf buf_;
};

}  // namespace rtgate
