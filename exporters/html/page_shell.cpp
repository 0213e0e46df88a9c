#include "exporters/html/page_shell.h"

#include "exporters/html/html_text.h"

namespace rtgate::html {
namespace {

constexpr const char* kHead =
    "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";

constexpr const char* kStyle = R"(<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0 1.5em 3em;color:#222}
h1{font-size:1.5em;margin:.6em 0 .2em}h2{font-size:1.2em;margin:1.2em 0 .4em}
h3{font-size:1em}h4{margin:.6em 0 .2em;font-size:.95em}
table{border-collapse:collapse;margin:.4em 0;font-size:.9em}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f3f3f3}tr.diff td{background:#fff3cd}
tr.v-regressed td{background:#fde2e1}tr.v-missing td,tr.v-inconclusive td{background:#fff6dc}
tr.v-improved td{background:#e3f5e1}
.scroll{overflow-x:auto}#verdict td:nth-child(12){min-width:28em}.dim{color:#777}.reason{font-style:italic}
.warn{background:#fff3cd;border-left:4px solid #e0a800;padding:.3em .8em;margin:.4em 0}
.banner{font-size:1.2em;font-weight:600;padding:.4em .8em;border-radius:4px;margin:.5em 0}
.banner.regressed,.banner.worse{background:#f8d7da}
.banner.unchanged,.banner.improved,.banner.not_worse{background:#d4edda}
.banner.inconclusive,.banner.missing,.banner.none,.banner.too_short{background:#fff3cd}
.b{display:inline-block;padding:0 .45em;border-radius:3px;font-size:.8em;background:#e2e3e5}
.b-regressed,.b-failed,.b-error,.b-worse,.b-bad{background:#f5c2c7}.b-unchanged,.b-not_worse,.b-passed,.b-ok{background:#d1e7dd}
.b-improved,.b-better{background:#badbcc}.b-inconclusive,.b-missing,.b-skipped,.b-contaminated,.b-warn{background:#ffe69c}
details{margin:.3em 0}summary{cursor:pointer}
details.suite-d>summary{font-size:1.1em;padding:.3em 0;border-bottom:1px solid #ccc}
details.case-d{margin-left:1em}.suite{font-weight:600}.case{font-weight:600}
.metric{display:flex;flex-wrap:wrap;align-items:flex-start;gap:0 1.5em;margin:0 0 .8em}
ul.notes{margin:0 0 .8em;padding-left:1.4em;font-size:.9em}.notes .worse{color:#b02a37}
nav ul{columns:2;margin:.2em 0}pre{background:#f7f7f7;padding:.5em;overflow-x:auto}
svg.chart{display:block;margin:.3em 0}svg .t{font-weight:600;font-size:12px}
svg text{font-size:11px;fill:#333}
svg polyline,svg path{fill:none;stroke:currentColor;stroke-width:1.5}
svg .d{stroke-dasharray:5 3}svg path.h{stroke-width:1.2;stroke-dasharray:none}
svg path.h.c0{fill:rgba(31,119,180,.12)}svg path.pt{stroke-width:5;stroke-linecap:round;stroke-dasharray:none}
svg .ye text{text-anchor:end}svg .xm text{text-anchor:middle}
svg .g{stroke:#eee}svg .a{stroke:#888}svg .m{stroke-width:1}svg .ml{font-size:10px}
svg .ml.c3{fill:#b02a37}svg path.f{stroke-width:3;stroke-dasharray:none}
.c0{color:#1f77b4}.c1{color:#ff7f0e}.c2{color:#2ca02c}.c3{color:#d62728}
.c4{color:#9467bd}.c5{color:#8c564b}.c6{color:#e377c2}.c7{color:#17becf}.cn{color:#999}
@media print{details>summary{list-style:none}button{display:none}}
</style>)";

constexpr const char* kScript = R"(<script>
document.querySelectorAll('button[data-open]').forEach(function (b) {
  b.addEventListener('click', function () {
    var open = b.getAttribute('data-open') === '1';
    document.querySelectorAll('details').forEach(function (d) { d.open = open; });
  });
});
</script>)";

}  // namespace

std::string page_head(const std::string& title) {
  return std::string(kHead) + "<title>" + escape(title) + "</title>" + kStyle + "</head><body>";
}

std::string expand_buttons() {
  return "<button data-open=\"1\">expand all</button> <button data-open=\"0\">collapse "
         "all</button>";
}

std::string page_tail() { return std::string(kScript) + "</body></html>\n"; }

}  // namespace rtgate::html
