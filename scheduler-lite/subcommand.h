// File: scheduler-lite/subcommand.h
//
// One scheduler-lite subcommand: its name, its flags, the checks run on them
// after parsing, and its run function. main.cc holds the table of them
// (AllSubcommands), parses the command line with CLI11 and runs the chosen one.
//
// Exit codes every subcommand keeps (base/usage.h): 0 success; 1 no source
// could be read, or an I/O error; 2 bad arguments (kUsageExitCode); 3 nothing
// satisfied the request (no feasible candidate, no window).
//
// Ownership and threads: a Subcommand binds its flags to its own members, so
// it must outlive the CLI::App it added them to; it is used from main's thread.
#ifndef CARBONROUTE_SCHEDULER_LITE_SUBCOMMAND_H_
#define CARBONROUTE_SCHEDULER_LITE_SUBCOMMAND_H_

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>
#include <vector>

#include "base/clock.h"
#include "base/stop_signals.h"
#include "net/http_client.h"

namespace carbonroute::scheduler_lite {

// What a subcommand's Run is handed; all of it owned by main.
struct ProgramContext {
  net::HttpClient& http;
  Clock& clock;
  StopSignals* signals;  // set for a subcommand whose WatchesStopSignals() is true
  std::ostream& out;
  std::ostream& err;
};

class Subcommand {
 public:
  virtual ~Subcommand() = default;
  virtual const char* name() const = 0;
  virtual const char* description() const = 0;
  // Adds this subcommand's flags to `cmd`, bound to members of this object.
  virtual void AddFlags(CLI::App& cmd) = 0;
  // After parsing: checks and converts the flags; throws CLI::ValidationError
  // naming the flag and the value (the usage exit code, 2).
  virtual void Validate() {}
  // True for a long-running subcommand stopped by SIGINT/SIGTERM: main then
  // watches them before any library can start a thread.
  virtual bool WatchesStopSignals() const { return false; }
  // Runs it; returns the exit code.
  virtual int Run(ProgramContext& context) = 0;
};

// The table: every subcommand, in the order --help lists them.
std::vector<std::unique_ptr<Subcommand>> AllSubcommands();

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_SUBCOMMAND_H_
