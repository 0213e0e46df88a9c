// Results stored compressed: `-o NAME.json.gz` writes gzip (RFC 1952) and every command that
// loads a result reads gzip as well as plain JSON: results compress about 3.5 to 1, which counts
// for a lab that keeps every session's result. zlib does the work.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace rtgate::gz {

// True for a path ending in ".gz": such an output is written compressed.
bool wants_gzip(const std::string& path);
// True when `bytes` start as a gzip member does (1f 8b).
bool is_gzip(std::string_view bytes);

// zlib level 4: on a lab-scale result nearly the default level's size in well under half its
// time, and clearly smaller than level 1 (build/bench_scale with .json.gz measures it).
inline constexpr int kLevel = 4;

// Compresses text handed over in pieces, as it is produced; finish() returns the gzip file.
class Compressor {
 public:
  explicit Compressor(int level = kLevel);
  ~Compressor();
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;

  void add(std::string_view piece);
  std::string finish();

 private:
  void run(std::string_view in, int flush);
  struct State;  // zlib's stream, kept out of this header
  std::unique_ptr<State> s_;
  std::string staged_;  // pieces not yet deflated
  std::string out_;
};

// Inflates the gzip members in `bytes` (one, or several one after the other, as `cat a.gz b.gz`
// makes). On success returns true with the text in out[0, *len) and `padding` bytes to spare
// behind it; else false with *why set ("truncated", "content after the compressed data",
// "inflates past N MiB", or zlib's reason).
// `max_len` bounds the text, so that a small hostile file cannot take the machine's memory.
bool inflate_all(std::string_view bytes, std::size_t max_len, std::size_t padding, std::string* out,
                 std::size_t* len, std::string* why);

}  // namespace rtgate::gz
