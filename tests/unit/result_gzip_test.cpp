// Results stored as .json.gz (gzip_codec.h): written compressed as they are produced, read by
// content whatever the name, from files, gzip(1)'s output and concatenated members alike; a
// damaged or oversized one is a one-line JsonError, never a crash or an unbounded allocation.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "results/gzip_codec.h"
#include "results/result_json.h"
#include "tests/unit/load_test_helpers.h"
#include "tests/unit/result_encodings.h"

namespace rtgate {
namespace {

using load::test::TempDir;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string inflated(const std::string& gz) {
  std::string out, why;
  std::size_t len = 0;
  EXPECT_TRUE(gz::inflate_all(gz, 1 << 30, 0, &out, &len, &why)) << why;
  return out.substr(0, len);
}

// A gzip header, a few deflate bytes cut short, and a tail whose last 4 bytes claim 4 GiB.
std::string inflated_copy_of_header_and_lie() {
  gz::Compressor c;
  c.add(std::string(1000, 'x'));
  std::string gz = c.finish().substr(0, 14);
  gz += std::string(4, '\0') + std::string(4, '\xff');
  return gz;
}

std::string load_error(const std::string& path) {
  try {
    read_report_file(path);
  } catch (const JsonError& e) {
    return e.what();
  }
  return "";
}

TEST(ResultGzip, ADotGzOutputIsTheSameTextCompressedAndLoadsTheSame) {
  TempDir dir;
  const RunReport r = test::lab_result();
  const std::string plain = dir.path + "/r.json", packed = dir.path + "/r.json.gz";
  ASSERT_EQ(write_result_file(plain, r), "");
  ASSERT_EQ(write_result_file(packed, r), "");
  const std::string gz_bytes = slurp(packed);
  ASSERT_TRUE(gz::is_gzip(gz_bytes));
  EXPECT_EQ(inflated(gz_bytes), slurp(plain));
  EXPECT_LT(gz_bytes.size() * 3, slurp(plain).size()) << "a result compresses at least 3:1";
  EXPECT_EQ(to_json_text(read_report_file(packed)), to_json_text(read_report_file(plain)));
  // By content, not by name: a gzip file named .json loads, a plain one named .gz too.
  spit(dir.path + "/renamed.json", gz_bytes);
  spit(dir.path + "/plain.gz", slurp(plain));
  EXPECT_EQ(load_error(dir.path + "/renamed.json"), "");
  EXPECT_EQ(load_error(dir.path + "/plain.gz"), "");
}

TEST(ResultGzip, GzipsOwnOutputAndConcatenatedMembersLoad) {
  TempDir dir;
  const std::string text = to_json_text(test::lab_result());
  spit(dir.path + "/a", text.substr(0, text.size() / 2));
  spit(dir.path + "/b", text.substr(text.size() / 2));
  ASSERT_EQ(std::system(("gzip -9 -c " + dir.path + "/a > " + dir.path + "/whole.gz && " +
                         "gzip -1 -c " + dir.path + "/b >> " + dir.path + "/whole.gz")
                            .c_str()),
            0);
  EXPECT_EQ(inflated(slurp(dir.path + "/whole.gz")), text);
  EXPECT_EQ(load_error(dir.path + "/whole.gz"), "");
}

TEST(ResultGzip, DamageIsAOneLineErrorNamingTheFile) {
  TempDir dir;
  const std::string path = dir.path + "/r.json.gz";
  ASSERT_EQ(write_result_file(path, test::lab_result()), "");
  const std::string good = slurp(path);
  spit(path, good.substr(0, good.size() - 100));
  std::string e = load_error(path);
  EXPECT_NE(e.find("cannot read '" + path + "': gzip: "), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  std::string flipped = good;
  for (std::size_t i = 40; i < flipped.size() - 20; i += 97)
    flipped[i] = static_cast<char>(~flipped[i]);
  spit(path, flipped);
  e = load_error(path);
  EXPECT_NE(e.find("gzip: "), std::string::npos) << e;
  // The gzip header alone, and garbage after a complete member.
  spit(path, good.substr(0, 10));
  EXPECT_NE(load_error(path).find("gzip: "), std::string::npos);
  spit(path, good + "trailing");
  EXPECT_NE(load_error(path).find("gzip: content after the compressed data"), std::string::npos);
}

TEST(ResultGzip, InflationIsBoundedWhateverTheHeaderClaims) {
  // 8 MiB of zeros compress to about 8 kB: a limit of 1 MiB stops it there.
  gz::Compressor c(9);
  const std::string zeros(std::size_t{8} << 20, '\0');
  c.add(zeros);
  std::string bomb = c.finish();
  ASSERT_LT(bomb.size(), 20'000u);
  std::string out, why;
  std::size_t len = 0;
  EXPECT_FALSE(gz::inflate_all(bomb, std::size_t{1} << 20, 64, &out, &len, &why));
  EXPECT_EQ(why, "inflates past 1 MiB");
  EXPECT_LE(out.size(), (std::size_t{1} << 20) + 1 + 64) << "never more than the limit";
  // Within a higher limit it inflates whole, with the padding behind the text.
  why.clear();
  ASSERT_TRUE(gz::inflate_all(bomb, std::size_t{16} << 20, 64, &out, &len, &why)) << why;
  EXPECT_EQ(len, zeros.size());
  EXPECT_GE(out.size(), len + 64);
  EXPECT_EQ(out.compare(0, len, zeros), 0);
  // A trailer that claims 4 GiB (ISIZE) sizes the buffer no larger than the limit, and a small
  // damaged file's ISIZE no larger than 32 times the file.
  std::string liar = bomb;
  for (std::size_t i = 1; i <= 4; ++i) liar[liar.size() - i] = '\xff';
  why.clear();
  EXPECT_FALSE(gz::inflate_all(liar, std::size_t{1} << 20, 64, &out, &len, &why));
  EXPECT_LE(out.size(), (std::size_t{1} << 20) + 1 + 64);
  const std::string small = inflated_copy_of_header_and_lie();
  out = std::string();
  why.clear();
  EXPECT_FALSE(gz::inflate_all(small, std::size_t{1} << 30, 64, &out, &len, &why));
  EXPECT_FALSE(why.empty());
  EXPECT_LE(out.size(), (std::size_t{1} << 16) + 64) << "the lie was not believed";
}

}  // namespace
}  // namespace rtgate
