// kvw run: tick transactions headless, with a proposer, injected actions and a trace.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.h"
#include "common_options.h"
#include "core/policy/gate/lifespan_recorder.h"
#include "core/session/session.h"
#include "core/session/trace_file.h"
#include "core/state/action_json.h"
#include "sampling_args.h"
#include "session_args.h"
#include "stop_signals.h"

namespace kvw::cli {

namespace {

const char* outcome(const TickResult& r) {
    return r.rejected ? "rejected" : r.aborted ? "aborted+rebuilt" : "ok";
}

void write_lifespans(const LifespanRecorder& recorder, const std::string& path) {
    const LifespanRecords& records = recorder.records();
    write_lifespans_file(records, path);
    size_t total = 0;
    double sum = 0.0;
    size_t zero = 0;
    for (const LifespanRecords::Layer& layer : records.layers) {
        total += layer.count();
        for (const float t : layer.lifespans) {
            sum += t;
            zero += t == 0.0f;
        }
    }
    std::printf(
        "lifespans: %s (%zu records over %d layers, mean %.2f ticks, %.1f%% never above "
        "threshold; %zu censored and dropped)\n",
        path.c_str(), total, records.n_layers, total ? sum / double(total) : 0.0,
        total ? 100.0 * double(zero) / double(total) : 0.0, recorder.censored());
}

// The ticks after which each invariant failed, by name: a run whose state broke its own
// invariants must not look like a clean one (issue 26 item 3), and the name says where to look.
class InvariantFailures {
public:
    void observe(const Frame& f) {
        if (f.all_invariants_pass()) return;
        ++ticks_;
        for (const InvariantStatus& s : f.invariants)
            if (!s.passed) ++by_name_[s.name];
    }
    bool any() const { return ticks_ > 0; }
    // "invariants failed after 3 of 10 ticks: budget_rows (3), sinks_first (1)"
    std::string describe(long ticks_run) const {
        std::string text = "invariants failed after " + std::to_string(ticks_) + " of " +
                           std::to_string(ticks_run) + " ticks:";
        const char* sep = " ";
        for (const auto& [name, count] : by_name_) {
            text += sep + name + " (" + std::to_string(count) + ")";
            sep = ", ";
        }
        return text;
    }

private:
    long ticks_ = 0;
    std::map<std::string, long> by_name_;
};

bool capacity_full(const TickResult& r) {
    return std::any_of(r.rejections.begin(), r.rejections.end(), [](const ValidationError& e) {
        return e.rule == ValidationRule::CapacityExceeded;
    });
}

int run_run(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    SessionOptions options;
    options.model = args.get("model");
    options.backend = args.get("backend");
    options.capacity = args.get_count("capacity", INT64_MAX);  // Session checks it
    options.sampling = sampling_from_args(args);
    read_session_options(args, options);
    const std::string guard = args.get("guard");
    if (guard != "on" && guard != "off" && guard != "full")
        throw UsageError("--guard takes on, off or full");
    options.guard = guard != "off";
    options.guard_full = guard == "full";
    const long ticks = long(args.get_count("ticks", INT32_MAX));
    // Read before the model loads, so that a bad file fails fast.
    const ActionList injected =
        args.has("actions") ? read_action_list_file(args.get("actions")) : ActionList{};
    // The same for the trace: a path that cannot be written fails now, not after the run. The
    // file grows a line per event as the run goes (TraceFile), so a run killed or failing
    // part-way leaves every tick before it.
    check_output_options(args, {"record-lifespans"});
    std::optional<TraceFile> trace;
    if (args.has("trace")) trace.emplace(args.get("trace"));
    const auto keep_trace = [&](const Session& s) {
        if (trace) trace->sync(s.trace());
    };
    const StopSignals stop_signals;

    LifespanOptions lifespan;
    lifespan.threshold = float(args.get_double("lifespan-threshold", 0, kMaxLifespanThreshold));
    lifespan.horizon = int(args.get_count("lifespan-horizon", INT32_MAX));

    Session session(options);
    session.start(args.get("prompt"));
    if (!injected.empty()) session.inject(injected);
    keep_trace(session);
    std::optional<LifespanRecorder> recorder;
    if (args.has("record-lifespans")) {
        recorder.emplace(session.state(), lifespan);
        recorder->begin(session.state());
    }
    std::printf("tick  token  rows(l0)  actions  outcome  invariants  state_hash\n");
    std::string stopped;  // why the run ended early; empty when it ran every tick
    int interrupted = 0;  // the signal that stopped it
    InvariantFailures failures;
    long ticks_run = 0;
    for (long i = 0; i < ticks && stopped.empty(); ++i) {
        if (const int signal = stop_signals.received()) {
            interrupted = signal;
            stopped = std::string(signal == SIGINT ? "SIGINT" : "SIGTERM") + ": stopped after " +
                      std::to_string(i) + " of " + std::to_string(ticks) + " ticks";
            break;
        }
        const TickResult r = session.step();
        keep_trace(session);
        if (recorder) recorder->observe(session.state(), session.tick());
        const FramePtr f = session.frame();
        ++ticks_run;
        failures.observe(*f);
        const int32_t token = session.trace().events().back().at("token").get<int32_t>();
        // A rejected tick did not happen: "-", not the number of the tick before it again.
        const std::string tick = r.rejected ? "-" : std::to_string(f->tick);
        std::printf("%4s  %5d  %8d  %7zu  %-8s %-10s  %016llx\n", tick.c_str(), token,
                    f->layers.front().rows(), f->last_actions.size(), outcome(r),
                    f->all_invariants_pass() ? "pass" : "FAIL",
                    static_cast<unsigned long long>(f->state_hash));
        if (!f->last_error.empty()) std::printf("      %s\n", f->last_error.c_str());
        // A full cache refuses every later tick the same way: stop instead of repeating it.
        if (r.rejected && capacity_full(r))
            stopped = "the cache is full (" + std::to_string(f->capacity) +
                      " rows per layer): stopped after " + std::to_string(i) + " of " +
                      std::to_string(ticks) + " ticks";
    }
    std::vector<int32_t> text_ids = session.state().tokens(0);
    std::erase(text_ids, -1);  // wLOD gist rows stand for tokens without being one
    std::printf("text: %s\n", session.model().tokenizer.decode(text_ids).c_str());
    if (trace) {
        trace->close();
        std::printf("trace: %s (%zu events)\n", args.get("trace").c_str(), trace->events_written());
    }
    if (recorder) write_lifespans(*recorder, args.get("record-lifespans"));
    if (interrupted) {  // the shell's convention for a process a signal ended: 128 + signal
        std::fprintf(stderr, "kvw run: %s\n", stopped.c_str());
        return 128 + interrupted;
    }
    if (!stopped.empty())
        throw std::runtime_error(failures.any() ? stopped + "; " + failures.describe(ticks_run)
                                                : stopped);
    if (failures.any()) throw std::runtime_error(failures.describe(ticks_run));
    return 0;
}

}  // namespace

CommandSpec run_command() {
    OptionTable options = {
        model_option(),
        {"prompt", "TEXT", "", "the prompt, after BOS"},
        {"ticks", "N", "16", "ticks to run"},
    };
    for (const OptionSpec& o : session_options()) options.push_back(o);
    options.push_back({"guard", "on|off|full", "on",
                       "re-check the cheap invariants after every primitive (on); full: also "
                       "compare the incremental state digest and invariants with their "
                       "from-scratch references after every command"});
    options.push_back({"actions", "FILE", "", "an action list (JSON) queued for the first tick"});
    options.push_back({"trace", "OUT", "",
                       "write the NDJSON trace that kvw replay repeats, a line per event as the "
                       "run goes (SIGINT / SIGTERM stop it after the current tick)"});
    options.push_back({"record-lifespans", "OUT", "",
                       "record each generated token's key and lifespan per layer (GGUF) for "
                       "kvw train-gate; needs the full cache"});
    options.push_back({"lifespan-threshold", "X", "2",
                       "attention share (1 = a uniform row's, 0 to 1e6) a token must reach to "
                       "count as alive"});
    options.push_back(
        {"lifespan-horizon", "TICKS", "64", "ticks each token is watched; later ones are dropped"});
    options.push_back(
        {"capacity", "ROWS", "0",
         "rows per layer, at most the model's context and what memory allows; 0: the model's "
         "context, at most 8192"});
    for (const OptionSpec& o : sampling_options()) options.push_back(o);
    options.push_back(backend_option("auto"));
    return {"run", "", "tick transactions headless: proposer, injected actions, invariants, trace",
            options, run_run};
}

}  // namespace kvw::cli
