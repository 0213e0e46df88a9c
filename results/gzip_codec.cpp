#include "results/gzip_codec.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace rtgate::gz {
namespace {

constexpr std::size_t kStageBytes = std::size_t{256} << 10;

}  // namespace

bool wants_gzip(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

struct Compressor::State {
  z_stream z{};
};

Compressor::Compressor(int level) : s_(std::make_unique<State>()) {
  staged_.reserve(kStageBytes);
  // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
  if (deflateInit2(&s_->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("zlib: deflateInit2 failed");
  }
}

Compressor::~Compressor() { deflateEnd(&s_->z); }

void Compressor::run(std::string_view in, int flush) {
  z_stream& z = s_->z;
  // zlib's avail_in is an unsigned int: feed larger pieces in parts.
  do {
    const std::size_t part = std::min<std::size_t>(in.size(), UINT_MAX);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(part);
    in.remove_prefix(part);
    const int f = in.empty() ? flush : Z_NO_FLUSH;
    int rc = Z_OK;
    do {
      if (out_.size() == out_.capacity())
        out_.reserve(std::max<std::size_t>(out_.size() * 2, 1 << 16));
      const std::size_t used = out_.size();
      out_.resize(out_.capacity());
      z.next_out = reinterpret_cast<Bytef*>(out_.data() + used);
      z.avail_out = static_cast<uInt>(std::min<std::size_t>(out_.size() - used, UINT_MAX));
      const uInt room = z.avail_out;
      rc = deflate(&z, f);
      out_.resize(used + (room - z.avail_out));
    } while (z.avail_out == 0 || (f == Z_FINISH && rc != Z_STREAM_END));
  } while (!in.empty());
}

void Compressor::add(std::string_view piece) {
  // Small pieces (a JSON case is a few kB) are gathered first: deflate per call costs.
  if (staged_.size() + piece.size() > kStageBytes) {
    run(staged_, Z_NO_FLUSH);
    staged_.clear();
  }
  if (piece.size() > kStageBytes) {
    run(piece, Z_NO_FLUSH);
  } else {
    staged_ += piece;
  }
}

std::string Compressor::finish() {
  run(staged_, Z_FINISH);
  staged_ = std::string();
  return std::move(out_);
}

namespace {

// Inflates into out[0, n), growing it up to max_len (+ padding). Returns "", or why not.
std::string inflate_into(z_stream& z, std::string_view bytes, std::size_t max_len,
                         std::size_t padding, std::string& out, std::size_t& n) {
  std::size_t fed = 0;
  for (;;) {
    if (z.avail_in == 0 && fed < bytes.size()) {
      const std::size_t more = std::min<std::size_t>(bytes.size() - fed, UINT_MAX);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + fed));
      z.avail_in = static_cast<uInt>(more);
      fed += more;
    }
    // Full: grow, at most to one byte past the limit (which reaching is the refusal).
    if (n + padding == out.size()) out.resize(std::min(n * 2, max_len + 1) + padding);
    const std::size_t room = std::min<std::size_t>(out.size() - padding - n, UINT_MAX);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + n);
    z.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&z, Z_NO_FLUSH);
    n += room - z.avail_out;
    if (n > max_len) return "inflates past " + std::to_string(max_len >> 20) + " MiB";
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0 && fed == bytes.size()) return "";  // the last member
      // Another member follows (`cat a.gz b.gz`): its text continues this one.
      if (z.avail_in != 0 && !is_gzip({reinterpret_cast<const char*>(z.next_in), z.avail_in})) {
        return "content after the compressed data";
      }
      if (inflateReset(&z) != Z_OK) return "zlib: inflateReset failed";
    } else if (rc == Z_BUF_ERROR && z.avail_in == 0 && fed == bytes.size()) {
      return "truncated";
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return z.msg != nullptr ? z.msg : "corrupt";
    }
  }
}

}  // namespace

bool inflate_all(std::string_view bytes, std::size_t max_len, std::size_t padding, std::string* out,
                 std::size_t* len, std::string* why) {
  z_stream z{};
  // windowBits 15 + 16: gzip only (a zlib or raw stream is not a result file).
  if (inflateInit2(&z, 15 + 16) != Z_OK) return *why = "zlib: inflateInit2 failed", false;
  // The trailer's ISIZE (the text's length mod 2^32) sizes the buffer for the usual single
  // member; several members only cost regrowth. A damaged file's ISIZE is noise: it is believed
  // up to 32 times the compressed size (results compress 3-5:1), so a lie cannot make a large
  // allocation from a small file.
  std::size_t hint = 1 << 16;
  if (bytes.size() >= 18) {
    std::uint32_t isize = 0;
    std::memcpy(&isize, bytes.data() + bytes.size() - 4, 4);  // little-endian, as x86 and arm64
    hint =
        std::clamp<std::size_t>(isize, hint, std::max(hint, std::min(max_len, 32 * bytes.size())));
  }
  out->resize(hint + padding);
  *len = 0;
  *why = inflate_into(z, bytes, max_len, padding, *out, *len);
  inflateEnd(&z);
  return why->empty();
}

}  // namespace rtgate::gz
