// The process exit codes that every command documents (docs/cli.md), in one place for the CLI,
// the gate's verdicts and the history's outcome.
#pragma once

namespace rtgate {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailed = 1,  // a suite failed, a regression, a worse segment
  kExitUsage = 2,   // bad input: the one-line error says which
  kExitInconclusive = 3,
  kExitEnvironment = 4,  // the machine cannot run what was asked
  kExitInterrupted = 130,
};

}  // namespace rtgate
