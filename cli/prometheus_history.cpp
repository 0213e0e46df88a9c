#include "cli/prometheus_history.h"

#include "cli/run_common.h"
#include "gate/history/prometheus_history.h"

namespace rtgate::cli {

void add_prometheus_options(CLI::App* cmd, PrometheusOptions& o) {
  cmd->add_option("--prometheus", o.url,
                  "read the history from this Prometheus (http(s)://HOST:PORT) instead of files: "
                  "the sessions rtgate pushed or a textfile collector exposed");
  cmd->add_option("--match", o.match,
                  "with --prometheus: label matchers that pick one board and selection, e.g. "
                  "'{host=\"lab1\",suite=~\"cyclic|lock.latency\"}'");
  cmd->add_option("--since", o.since, "with --prometheus: how far back (default 90d)");
  cmd->add_option("--step", o.step,
                  "with --prometheus: the query step (default 1m); sessions of one host closer "
                  "than this are read as one");
  cmd->add_option("--prometheus-bearer-file", o.bearer_file,
                  "a file whose first line is a bearer token for --prometheus");
  cmd->add_option("--prometheus-basic-file", o.basic_file,
                  "a file with a user:password line for --prometheus' basic auth");
  cmd->add_option("--prometheus-ca-file", o.ca_file,
                  "PEM CA certificates that --prometheus' TLS certificate must chain to "
                  "(default: the CAs the system trusts)");
}

std::optional<gate::PrometheusSource> prometheus_source(const PrometheusOptions& o,
                                                        std::string* error) {
  gate::PrometheusSource src{.url = o.url, .match = o.match};
  const std::optional<double> since = parse_duration(o.since);
  const std::optional<double> step = parse_duration(o.step);
  if (!since || *since <= 0) {
    *error = "--since '" + o.since + "' is not a duration (e.g. 30d, 12h)";
    return std::nullopt;
  }
  if (!step || *step < 1 || *since / *step > 1e8) {
    *error = "--step '" + o.step +
             "' is not a duration of at least 1s (and --since/--step at "
             "most 1e8)";
    return std::nullopt;
  }
  src.span_s = *since;
  src.step_s = *step;
  for (const auto& [path, basic] : {std::pair{o.bearer_file, false}, {o.basic_file, true}}) {
    if (path.empty()) continue;
    const auto auth = io::read_auth_file(path, basic, error);
    if (!auth) return std::nullopt;
    if (basic) {
      src.auth.basic_user = auth->basic_user;
      src.auth.basic_password = auth->basic_password;
    } else {
      src.auth.bearer_token = auth->bearer_token;
    }
  }
  src.auth.ca_file = o.ca_file;
  return src;
}

std::optional<gate::HistoryInputs> load_prometheus_history(const PrometheusOptions& o,
                                                           const gate::Policy& policy,
                                                           std::string* error) {
  const std::optional<gate::PrometheusSource> src = prometheus_source(o, error);
  if (!src) return std::nullopt;
  gate::HistoryBuilder builder(policy);
  int sessions = 0;
  if (std::string e = gate::read_prometheus_history(*src, policy, builder, &sessions); !e.empty()) {
    *error = e;
    return std::nullopt;
  }
  if (sessions == 0) {
    *error = "--prometheus: no rtgate session matches " +
             (o.match.empty() ? std::string("(no --match)") : o.match) + " in the last " + o.since;
    return std::nullopt;
  }
  gate::HistoryInputs in;
  in.history = builder.finish();
  return in;
}

}  // namespace rtgate::cli
