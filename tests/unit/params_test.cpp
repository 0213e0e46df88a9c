#include "framework/params.h"

#include <gtest/gtest.h>

namespace rtgate {
namespace {

ParamSpec interval() {
  return ParamSpec::integer("interval_us", 1000, 50, 1'000'000, "us", "wakeup period");
}

std::string parse_error(const ParamSpec& spec, const std::string& text) {
  std::string why;
  EXPECT_FALSE(spec.parse(text, &why).has_value()) << text;
  return why;
}

TEST(ParamSpec, IntegerAcceptsValuesInRange) {
  std::string why;
  EXPECT_EQ(std::get<std::int64_t>(*interval().parse("50", &why)), 50);
  EXPECT_EQ(std::get<std::int64_t>(*interval().parse("1000000", &why)), 1'000'000);
}

TEST(ParamSpec, IntegerRejectsEveryBadFormNamingParamAndRange) {
  for (const char* bad :
       {"", "abc", "12x", "1.5", "49", "1000001", "-1", " 10", "99999999999999999999999"}) {
    const std::string why = parse_error(interval(), bad);
    EXPECT_NE(why.find("interval_us"), std::string::npos) << why;
    EXPECT_NE(why.find("[50, 1000000] us"), std::string::npos) << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << "one line: " << why;
  }
}

TEST(ParamSpec, RealBoolChoiceAndCpuList) {
  std::string why;
  const auto r = ParamSpec::real("ratio", 0.5, 0, 1, "", "mix");
  EXPECT_DOUBLE_EQ(std::get<double>(*r.parse("0.25", &why)), 0.25);
  parse_error(r, "1.5");
  parse_error(r, "nan");
  parse_error(r, "inf");
  parse_error(r, "0.5x");

  const auto b = ParamSpec::boolean("flag", false, "a flag");
  EXPECT_TRUE(std::get<bool>(*b.parse("true", &why)));
  EXPECT_FALSE(std::get<bool>(*b.parse("0", &why)));
  parse_error(b, "maybe");

  const auto c = ParamSpec::choice("policy", "fifo", {"fifo", "rr", "other"}, "policy");
  EXPECT_EQ(std::get<std::string>(*c.parse("rr", &why)), "rr");
  EXPECT_NE(parse_error(c, "FIFO").find("one of fifo|rr|other"), std::string::npos);

  const auto l = ParamSpec::cpu_list("cpus", "all", "cpus");
  EXPECT_EQ(std::get<std::string>(*l.parse("0-1", &why)), "0-1");
  EXPECT_EQ(std::get<std::string>(*l.parse("all", &why)), "all");
  parse_error(l, "1-");
  parse_error(l, "x");
}

TEST(Params, DefaultsThenOverrides) {
  Params p({interval(), ParamSpec::choice("policy", "fifo", {"fifo", "rr"}, "")});
  EXPECT_EQ(p.get_int("interval_us"), 1000);
  EXPECT_EQ(p.get_string("policy"), "fifo");
  p.set("interval_us", std::int64_t{200});
  EXPECT_EQ(p.get_int("interval_us"), 200);
  EXPECT_THROW(p.get_int("nope"), std::logic_error);
}

TEST(ParamAssignment, SplitsSuiteAndParam) {
  std::string why;
  auto a = parse_assignment("cyclic.interval_us=200", &why);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->suite, "cyclic");
  EXPECT_EQ(a->param, "interval_us");
  EXPECT_EQ(a->value, "200");
  a = parse_assignment("lock.latency.locks=pimutex,ticket", &why);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->suite, "lock.latency");
  EXPECT_EQ(a->param, "locks");
  EXPECT_EQ(a->value, "pimutex,ticket");
  a = parse_assignment("priority=90", &why);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->suite, "");
  EXPECT_EQ(a->param, "priority");
  // A value may itself contain '=' and '.'.
  a = parse_assignment("spec=a=b.c", &why);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->value, "a=b.c");
}

TEST(ParamAssignment, RejectsMalformedForms) {
  for (const char* bad : {"", "x", "=1", "x=", ".x=1", "cyclic.=1"}) {
    std::string why;
    EXPECT_FALSE(parse_assignment(bad, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

}  // namespace
}  // namespace rtgate
