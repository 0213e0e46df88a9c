#include "framework/selection.h"

#include <gtest/gtest.h>

#include "framework/bind_params.h"

namespace rtgate {
namespace {

SuiteResult noop(const Params&, RunContext&) { return {}; }

std::vector<SuiteDescriptor> catalogue() {
  std::vector<SuiteDescriptor> v;
  v.push_back({.name = "cyclic",
               .tags = {"sched", "smoke"},
               .summary = "",
               .params = {ParamSpec::integer("interval_us", 1000, 50, 1'000'000, "us", ""),
                          ParamSpec::integer("priority", 95, 1, 98, "", "")},
               .needs = Needs::kSchedFifo,
               .run = &noop});
  v.push_back({.name = "lock.latency",
               .tags = {"lock"},
               .summary = "",
               .params = {ParamSpec::integer("priority", 80, 1, 98, "", ""),
                          ParamSpec::string("locks", "all", "")},
               .run = &noop});
  v.push_back({.name = "lock.throughput",
               .tags = {"lock", "smoke"},
               .summary = "",
               .params = {},
               .run = &noop});
  v.push_back({.name = "pi.inversion", .tags = {"pi"}, .summary = "", .params = {}, .run = &noop});
  return v;
}

std::vector<std::string> names(const Selection& s) {
  std::vector<std::string> out;
  for (const auto* d : s.suites) out.emplace_back(d->name.value);
  return out;
}

using V = std::vector<std::string>;

TEST(Selection, ByNameGlobTagAndExclusion) {
  const auto c = catalogue();
  EXPECT_EQ(names(select_suites(c, {"cyclic"})), V({"cyclic"}));
  EXPECT_EQ(names(select_suites(c, {"lock.*"})), V({"lock.latency", "lock.throughput"}));
  EXPECT_EQ(names(select_suites(c, {"tag:smoke"})), V({"cyclic", "lock.throughput"}));
  EXPECT_EQ(names(select_suites(c, {"lock.*", "-lock.throughput"})), V({"lock.latency"}));
  EXPECT_EQ(names(select_suites(c, {"tag:lock", "cyclic"})),
            V({"cyclic", "lock.latency", "lock.throughput"}));
  // Duplicates collapse; order is the registry's.
  EXPECT_EQ(names(select_suites(c, {"pi.inversion", "pi.*", "tag:pi"})), V({"pi.inversion"}));
  // No positive selector: the default, or everything.
  EXPECT_EQ(names(select_suites(c, {}, "tag:smoke")), V({"cyclic", "lock.throughput"}));
  EXPECT_EQ(names(select_suites(c, {"-tag:lock"})), V({"cyclic", "pi.inversion"}));
}

TEST(Selection, UnknownNameSuggestsClosest) {
  const auto s = select_suites(catalogue(), {"cyclc"});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error.find("unknown suite 'cyclc'"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("did you mean cyclic?"), std::string::npos) << s.error;
  const auto t = select_suites(catalogue(), {"lock.latncy"});
  EXPECT_NE(t.error.find("lock.latency"), std::string::npos) << t.error;
}

TEST(Selection, GlobsTagsAndExclusionsThatMatchNothingAreErrors) {
  EXPECT_FALSE(select_suites(catalogue(), {"mm.*"}).ok());
  const auto t = select_suites(catalogue(), {"tag:smok"});
  EXPECT_NE(t.error.find("tag:smoke"), std::string::npos) << t.error;
  EXPECT_FALSE(select_suites(catalogue(), {"cyclic", "-nothing"}).ok());
  EXPECT_FALSE(select_suites(catalogue(), {""}).ok());
}

TEST(Registry, NamesAreValidatedAtCompileTime) {
  // SuiteName's constructor is consteval: these lines would not compile with "Bad Name".
  constexpr SuiteName ok("mm.whack_mmap_sem");
  EXPECT_STREQ(ok.value, "mm.whack_mmap_sem");
}

TEST(Registry, TheCyclicSuiteRegisteredItself) {
  const SuiteDescriptor* d = Registry::instance().find("cyclic");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->has_tag("smoke"));
  EXPECT_NE(d->find_param("interval_us"), nullptr);
  EXPECT_NE(d->run, nullptr);
}

TEST(BindParams, QualifiedAndUnqualifiedAssignments) {
  const auto c = catalogue();
  const auto sel = select_suites(c, {"cyclic", "lock.latency"});
  std::string why;
  auto b = bind_params(sel.suites, {"priority=90", "cyclic.interval_us=200"}, &why);
  ASSERT_TRUE(b) << why;
  EXPECT_EQ((*b)[0].params.get_int("priority"), 90);
  EXPECT_EQ((*b)[0].params.get_int("interval_us"), 200);
  EXPECT_EQ((*b)[1].params.get_int("priority"), 90);
  // A later, more specific assignment wins for its suite only.
  b = bind_params(sel.suites, {"priority=90", "lock.latency.priority=10"}, &why);
  ASSERT_TRUE(b) << why;
  EXPECT_EQ((*b)[0].params.get_int("priority"), 90);
  EXPECT_EQ((*b)[1].params.get_int("priority"), 10);
}

TEST(BindParams, EveryBadAssignmentIsAOneLineError) {
  const auto c = catalogue();
  const auto sel = select_suites(c, {"cyclic", "lock.latency"});
  struct Case {
    const char* text;
    const char* expect;
  };
  for (const Case& t : {Case{"interval_us=10", "[50, 1000000] us"},
                        Case{"cyclic.interval_us=abc", "not an integer"},
                        Case{"cyclic.nope=1", "has no parameter 'nope'"},
                        Case{"nope=1", "no selected suite has a parameter 'nope'"},
                        Case{"intervl_us=100", "did you mean interval_us?"},
                        Case{"pi.inversion.x=1", "not selected"}, Case{"priority=0", "priority"},
                        Case{"x", "KEY=VALUE"}}) {
    std::string why;
    EXPECT_FALSE(bind_params(sel.suites, {t.text}, &why)) << t.text;
    EXPECT_NE(why.find(t.expect), std::string::npos) << t.text << " -> " << why;
    EXPECT_EQ(why.find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace rtgate
