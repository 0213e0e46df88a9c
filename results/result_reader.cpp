// Reading result documents ("rtgate.result/1", "/2" and "/3") back into a RunReport (the gate,
// compare, export, the tests), with simdjson: at lab scale (10,000 cases, tens of MB) several
// times faster than nlohmann's parser, and without a tree of allocations.
#include <fcntl.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "base/io/input_limit.h"
#include "results/duplicate_keys.h"
#include "results/gzip_codec.h"
#include "results/json_dom.h"
#include "results/ondemand_runs.h"
#include "results/result_from_dom.h"
#include "results/result_json.h"

namespace rtgate {
namespace {

using json_dom::case_from;
using json_dom::Encoding;
using json_dom::encoding_of;
using json_dom::report_from_element;
using json_dom::suite_from;
using simdjson::dom::element;

// A whole document as one DOM costs its tape (16 bytes a number) and structural index on top
// of the text: about 6 times the text at 10,000 cases. So the document's top level and each
// suite's are walked with simdjson's On-Demand parser, and each piece (a case; a suite's or the
// document's other fields, with "cases" or "suites" left empty) is parsed as a DOM of its own by
// one reused parser. Every byte still goes through a DOM parse, so validation is unchanged;
// except with ReadOptions::history_only, whose cases are read On-Demand (history_case).
class Reader {
 public:
  Reader(std::string what, const ReadOptions& options)
      : what_(std::move(what)), options_(options) {}

  RunReport read(simdjson::ondemand::document& doc) {
    simdjson::ondemand::json_type type{};
    check(doc.type().get(type));
    if (type != simdjson::ondemand::json_type::object)
      throw JsonError("not a result document (expected a JSON object)");
    // The schema first, wherever it is (the writer puts it first): it says how metrics read, and
    // a document of another kind is named as such rather than by a field its suites lack.
    std::string_view schema;
    simdjson::ondemand::value schema_value;
    if (const auto err = doc.find_field_unordered("schema").get(schema_value)) {
      if (err != simdjson::NO_SUCH_FIELD) check(err);
    } else if (const auto e = schema_value.get_string().get(schema); e != simdjson::SUCCESS) {
      if (e != simdjson::INCORRECT_TYPE) check(e);
      schema = {};
    }
    enc_ = encoding_of(std::string(schema));
    doc.rewind();
    simdjson::ondemand::object top;
    check(doc.get_object().get(top));
    std::vector<SuiteResult> suites;
    Rest rest =
        walk(top, "suites", "document.suites", [&](simdjson::ondemand::value v, std::size_t i) {
          suites.push_back(suite(v, "suites[" + std::to_string(i) + "]"));
        });
    // Iterated to its end, the document has no current location unless something follows it.
    if (const char* after = nullptr; doc.current_location().get(after) == simdjson::SUCCESS) {
      throw JsonError(what_ + " is not valid JSON (content after the document)");
    }
    RunReport r = report_from_element(whole(rest.close()));
    r.suites = std::move(suites);
    return r;
  }

 private:
  // A JSON object's text, built from raw member texts.
  struct Rest {
    std::string text = "{";
    void add(std::string_view key, std::string_view raw) {
      if (text.size() > 1) text += ',';
      text += nlohmann::json(std::string(key)).dump();
      text += ':';
      text += raw;
    }
    const std::string& close() { return text += '}'; }
  };

  void check(simdjson::error_code e) const {
    if (e != simdjson::SUCCESS) {
      throw JsonError(what_ + " is not valid JSON (" + simdjson::error_message(e) + ")");
    }
  }

  std::string_view raw_of(simdjson::ondemand::value v) {
    std::string_view raw;
    check(simdjson::to_json_string(v).get(raw));
    return raw;
  }

  // A piece inside the padded input: the input's padding lies behind it, so no copy. Its DOM
  // takes several times its text: a case is kilobytes (a thousand runs, 1 MiB), and one from
  // elsewhere past kMaxPiece is refused before it is built.
  static constexpr std::size_t kMaxPiece = 16u << 20;
  element piece(std::string_view raw) {
    if (raw.size() > kMaxPiece) {
      throw JsonError(what_ + ": an object of " + std::to_string(raw.size() >> 20) +
                      " MiB, past the input limit of " + std::to_string(kMaxPiece >> 20) +
                      " MiB for one case");
    }
    element e;
    check(dom_.parse(raw.data(), raw.size(), false).get(e));
    return e;
  }
  element whole(const std::string& text) {
    element e;
    check(dom_.parse(text).get(e));
    return e;
  }

  // An object's members: the first array named `streamed`, element by element through
  // each(value, index); every other member into the returned Rest, with `streamed` as [].
  template <class Each>
  Rest walk(simdjson::ondemand::object o, std::string_view streamed, const std::string& what,
            Each&& each) {
    Rest rest;
    bool seen = false;
    for (auto f : o) {
      simdjson::ondemand::field field;
      check(std::move(f).get(field));
      std::string_view key;
      check(field.unescaped_key().get(key));
      if (key != streamed || seen) {
        rest.add(key, raw_of(field.value()));
        continue;
      }
      seen = true;
      rest.add(key, "[]");
      std::size_t i = 0;
      for (auto x : list_value(field.value(), [&] { return what; })) {
        simdjson::ondemand::value v;
        check(std::move(x).get(v));
        each(v, i++);
      }
    }
    return rest;
  }

  SuiteResult suite(simdjson::ondemand::value v, const std::string& where) {
    simdjson::ondemand::object o = object_value(v, [&] { return where; });
    std::vector<Case> cases;
    Rest rest = walk(o, "cases", where + ".cases", [&](simdjson::ondemand::value c, std::size_t i) {
      const std::string cw = where + ".cases[" + std::to_string(i) + "]";
      cases.push_back(options_.history_only ? history_case(c, cw)
                                            : case_from(piece(raw_of(c)), cw, enc_));
    });
    SuiteResult s = suite_from(whole(rest.close()), where, options_);
    s.cases = std::move(cases);
    refuse_repeated_cases(s, where);
    return s;
  }

  // The gate, compare and the history pair cases by name: of two with one name, which one is
  // paired is undefined, so such a suite is malformed, whatever command reads it.
  static void refuse_repeated_cases(const SuiteResult& s, const std::string& where) {
    std::unordered_map<std::string_view, std::size_t> first;
    first.reserve(s.cases.size());
    for (std::size_t i = 0; i < s.cases.size(); ++i) {
      const auto [at, added] = first.try_emplace(s.cases[i].name, i);
      if (added) continue;
      throw JsonError(where + ".cases[" + std::to_string(i) + "]: suite '" + s.name +
                      "' lists case '" + s.cases[i].name + "' twice (first at cases[" +
                      std::to_string(at->second) + "])");
    }
  }

  // ReadOptions::history_only: a case walked On-Demand, its values read where they are and
  // everything else skipped, not parsed (result_from_dom.h says what is read): at 1,000 cases
  // a third of the full read's time, the histograms' DOM and restoring them being most of the
  // rest. The small pieces with a schema of their own (a latency metric's runs, its summary) go
  // through the DOM reader.
  Case history_case(simdjson::ondemand::value v, const std::string& where) {
    Case c;
    bool named = false, listed = false;
    for (auto f : object_value(v, [&] { return where; })) {
      simdjson::ondemand::field field;
      check(std::move(f).get(field));
      std::string_view key;
      check(field.unescaped_key().get(key));
      if (key == "name") {
        c.name = string_value(field.value(), [&] { return where + ".name"; });
        named = true;
      } else if (key == "metrics") {
        listed = true;
        std::size_t k = 0;
        for (auto x : list_value(field.value(), [&] { return where + ".metrics"; })) {
          simdjson::ondemand::value m;
          check(std::move(x).get(m));
          c.metrics.push_back(history_metric(m, where, k++));
        }
      }
    }
    if (!named) throw JsonError(where + ": missing field 'name'");
    if (!listed) throw JsonError(where + ": missing field 'metrics'");
    return c;
  }

  // What history_metric read of a metric's fields, before it checks what is missing.
  struct MetricFields {
    json_dom::ImportedParts imported;  // "summary_only", "unknown_quantiles" (raw)
    std::string_view runs, summary;
    std::optional<std::string> kind, better, gating;
    bool named = false, unit = false, samples = false, histogram = false, runs_read = false;
  };

  Metric history_metric(simdjson::ondemand::value v, const std::string& cw, std::size_t k) {
    // Paths are built for error messages only.
    const auto where = [&] { return cw + ".metrics[" + std::to_string(k) + "]"; };
    const auto at = [&](const char* tail) { return [&where, tail] { return where() + tail; }; };
    Metric m;
    MetricFields mf;
    for (auto f : object_value(v, where)) {
      simdjson::ondemand::field field;
      check(std::move(f).get(field));
      std::string_view key;
      check(field.unescaped_key().get(key));
      if (key == "name") {
        m.name = string_value(field.value(), at(".name"));
        mf.named = true;
      } else if (key == "kind") {
        mf.kind = string_value(field.value(), at(".kind"));
        const auto known = metric_kind_from(*mf.kind);
        if (!known) throw JsonError(where() + ".kind: unknown metric kind");
        m.kind = *known;
      } else if (key == "unit") {
        m.unit = string_value(field.value(), at(".unit"));
        mf.unit = true;
      } else if (key == "better") {
        mf.better = string_value(field.value(), at(".better"));
      } else if (key == "gating") {
        mf.gating = string_value(field.value(), at(".gating"));
      } else if (key == "samples") {
        mf.samples = true;
        // A latency metric's samples are its runs' maxima, not read (unless it names its kind
        // after them: they are cleared below).
        if (mf.kind && m.kind == MetricKind::kLatency) continue;
        m.samples.clear();
        for (auto x : list_value(field.value(), at(".samples"))) {
          double d = 0;
          if (std::move(x).get_double().get(d) != simdjson::SUCCESS || !std::isfinite(d)) {
            throw JsonError(where() + ".samples: a value is not a finite number");
          }
          if (++samples_read_ > json_dom::kMaxSamples) {
            throw JsonError(where() + ".samples: more than " +
                            std::to_string(json_dom::kMaxSamples) +
                            " samples in the document (the input limit)");
          }
          m.samples.push_back(d);
        }
      } else if (key == "runs") {
        // Columns are read in place; the older array of summaries through the DOM reader.
        if (auto r = runs_on_demand(field.value(), at(".runs"), &mf.imported.missing_columns)) {
          m.runs = std::move(*r);
          mf.runs_read = true;
        } else {
          mf.imported.runs = mf.runs = raw_of(field.value());
        }
      } else if (key == "summary") {
        mf.summary = raw_of(field.value());
        if (mf.summary.front() != '{') throw JsonError(where() + ".summary: expected an object");
      } else if (key == "histogram") {
        mf.histogram = true;
        object_value(field.value(), at(".histogram"));
      } else if (key == "unknown_quantiles" || key == "summary_only") {
        (key == "summary_only" ? mf.imported.summary_only : mf.imported.unknown) =
            raw_of(field.value());
      }
    }
    finish_metric(m, mf, where());
    return m;
  }

  // The checks of what a metric must have, and its latency parts read from what was kept raw.
  void finish_metric(Metric& m, const MetricFields& f, const std::string& where) {
    if (!f.named) throw JsonError(where + ": missing field 'name'");
    if (!f.kind) throw JsonError(where + ": missing field 'kind'");
    if (!f.unit) throw JsonError(where + ": missing field 'unit'");
    if (!f.better) throw JsonError(where + ": missing field 'better'");
    const auto b = better_from(*f.better);
    if (!b) throw JsonError(where + ".better: expected lower or higher");
    m.better = *b;
    m.gating = json_dom::gating_from(f.gating.value_or(""), m.unit, where);
    if (!f.samples) throw JsonError(where + ": missing field 'samples'");
    if (m.kind != MetricKind::kLatency) return;
    m.samples.clear();
    if (f.summary.empty()) throw JsonError(where + ": missing field 'summary'");
    if (json_dom::read_imported_parts(m, f.imported, dom_, where)) return;
    if (!f.histogram) throw JsonError(where + ": missing field 'histogram'");
    if (f.runs_read) {
      // Read in place above.
    } else if (!f.runs.empty()) {
      m.runs = json_dom::runs_from(piece(f.runs), where + ".runs");
    } else if (enc_.one_run_when_absent) {
      // The writer writes the histogram's summary, which the full read's run is (up to the
      // rounding of a stddev restored from the file: the history does not use it).
      m.runs = {json_dom::latency_summary_from(piece(f.summary), where + ".summary")};
    }
  }

  // Checked values; `what()` names the value in the error.
  template <class What>
  simdjson::ondemand::object object_value(simdjson::ondemand::value v, const What& what) {
    expect(v, simdjson::ondemand::json_type::object, what, "an object");
    simdjson::ondemand::object o;
    check(v.get_object().get(o));
    return o;
  }
  template <class What>
  simdjson::ondemand::array list_value(simdjson::ondemand::value v, const What& what) {
    expect(v, simdjson::ondemand::json_type::array, what, "an array");
    simdjson::ondemand::array a;
    check(v.get_array().get(a));
    return a;
  }
  template <class What>
  void expect(simdjson::ondemand::value& v, simdjson::ondemand::json_type want, const What& what,
              const char* name) {
    simdjson::ondemand::json_type type{};
    check(v.type().get(type));
    if (type != want) throw JsonError(what() + ": expected " + name);
  }
  template <class What>
  std::string string_value(simdjson::ondemand::value v, const What& what) {
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS) throw JsonError(what() + ": expected a string");
    return std::string(s);
  }

  std::size_t samples_read_ = 0;  // in the document, up to json_dom::kMaxSamples
  std::string what_;
  ReadOptions options_;
  Encoding enc_;
  simdjson::dom::parser dom_;
};

// Parses `len` bytes at `data`, followed by `capacity - len` >= SIMDJSON_PADDING readable bytes.
// `what` names the input in the error.
RunReport parse_padded(const char* data, std::size_t len, std::size_t capacity,
                       const std::string& what, const ReadOptions& options = {}) {
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (const auto err = parser.iterate(data, len, capacity).get(doc)) {
    throw JsonError(what + " is not valid JSON (" + simdjson::error_message(err) + ")");
  }
  if (const auto key = first_duplicate_key({data, len})) {
    throw JsonError(what + ": the key \"" + key->substr(0, 80) + "\" twice in one object");
  }
  return Reader(what, options).read(doc);
}

RunReport parse_gzip(std::string_view bytes, const std::string& name, const ReadOptions& options) {
  std::string text;
  std::size_t len = 0;
  std::string why;
  if (!gz::inflate_all(bytes, max_input_bytes(), simdjson::SIMDJSON_PADDING, &text, &len, &why)) {
    throw JsonError("cannot read '" + name + "': gzip: " + why);
  }
  return parse_padded(text.data(), len, text.size(), "'" + name + "'", options);
}

}  // namespace

std::size_t max_input_bytes() { return io::max_input_bytes(); }

RunReport report_from_text(std::string_view text) {
  const simdjson::padded_string padded(text);
  return parse_padded(padded.data(), padded.size(), padded.size() + simdjson::SIMDJSON_PADDING,
                      "the document");
}

RunReport report_from_json(const nlohmann::json& doc) { return report_from_text(doc.dump()); }

RunReport report_from_bytes(std::string_view bytes, const std::string& name) {
  if (!gz::is_gzip(bytes)) return report_from_text(bytes);
  return parse_gzip(bytes, name, {});
}

RunReport read_report_file(const std::string& path) { return read_report_file(path, {}); }

RunReport read_report_file(const std::string& path, const ReadOptions& options) {
  // Read whole with read(2), into a buffer with simdjson's padding behind it (no second copy);
  // pipes and process substitutions work as well as regular files.
  // O_NONBLOCK: a FIFO nobody writes to (planted in a results folder) reads as empty instead of
  // blocking the open; the reads then block as usual.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw JsonError("cannot read '" + path + "': " + std::strerror(errno));
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const std::size_t limit = max_input_bytes();
  const auto too_big = [&] {
    ::close(fd);
    return JsonError("cannot read '" + path + "': larger than the input limit of " +
                     std::to_string(limit >> 20) + " MiB (--max-input, RTGATE_MAX_INPUT_MB)");
  };
  struct stat st {};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    if (static_cast<std::size_t>(st.st_size) > limit) throw too_big();
    // Its size and one byte more (to see the end without growing), and the padding behind.
    const auto size = static_cast<std::size_t>(st.st_size) + 1;
    text.reserve(size + simdjson::SIMDJSON_PADDING);
    text.resize(size);
  }
  std::size_t len = 0;
  for (;;) {
    if (len > limit) throw too_big();
    if (len == text.size()) text.resize(std::max<std::size_t>(text.size() * 2, 65536));
    const ssize_t n = ::read(fd, text.data() + len, text.size() - len);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw JsonError("cannot read '" + path + "': " + std::strerror(e));
    }
    len += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (gz::is_gzip({text.data(), len})) return parse_gzip({text.data(), len}, path, options);
  text.resize(len + simdjson::SIMDJSON_PADDING);
  return parse_padded(text.data(), len, text.size(), "'" + path + "'", options);
}

}  // namespace rtgate
