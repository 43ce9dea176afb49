// kvw bench tick: what a tick costs beside its forward pass at long contexts (ARCHITECTURE
// §6.1). A session of the thin 22-layer model is filled to 8k, 32k and 100k rows (the default
// model to its context), then stepped; the forward pass is the tick's own (StepTimings::
// forward_ms: the engine's time inside Step 4), and the bookkeeping is the rest of the tick and
// its Frame but Steps 2 and 3 (brightness, the proposer), which are shown beside it: the state
// digest, the invariants, the mirror snapshot, pre-flight, the trace event, checkpoints. Guard
// on and off. The from-scratch digest and invariant check, which the incremental ones replace,
// are timed beside them, and so is the checkpoint a session takes every few ticks (a copy of
// what changed since the one before it), with its share of a tick.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "commands.h"
#include "common_options.h"
#include "core/model/model_loader.h"
#include "core/session/session.h"

namespace kvw::cli {
namespace {

using Clock = BenchClock;

constexpr int kPromptRows = 8;  // BOS + the prompt's tokens, about

// Adds rows after the prompt up to `rows` in one Step 4 append: tokens spread over the
// vocabulary, so that the rows are not all alike.
ActionList fill_actions(int rows_now, int rows, int vocab) {
    ActionList adds;
    for (int r = rows_now; r < rows; ++r)
        adds.push_back(
            Action{AddAction{int32_t(3 + (uint64_t(r) * 7919u) % uint64_t(vocab - 3))}, {}});
    return adds;
}

// Medians over a run of ticks, each measured on the same tick: its forward pass, wall time,
// Frame, Steps 2 and 3, what is beside its forward pass (the tick and its Frame but the forward
// pass) and the bookkeeping (that but Steps 2 and 3, the tick's own work: every row's
// brightness decays).
struct TickCosts {
    double forward = 0, tick = 0, frame = 0, brightness = 0, propose = 0, beside_forward = 0,
           bookkeeping = 0;
};

TickCosts time_ticks(Session& s, int ticks) {
    std::vector<double> forward, tick, frame, brightness, propose, beside, bookkeeping;
    for (int i = 0; i < ticks; ++i) {
        const StepTimings before = s.summed_timings();
        auto start = Clock::now();
        s.step();
        tick.push_back(ms_since(start));
        start = Clock::now();
        (void)s.frame();
        frame.push_back(ms_since(start));
        const StepTimings& after = s.summed_timings();
        forward.push_back(after.forward_ms - before.forward_ms);
        brightness.push_back(after.brightness_ms - before.brightness_ms);
        propose.push_back(after.propose_ms - before.propose_ms);
        beside.push_back(tick.back() + frame.back() - forward.back());
        bookkeeping.push_back(beside.back() - brightness.back() - propose.back());
    }
    return {median(forward), median(tick),   median(frame),      median(brightness),
            median(propose), median(beside), median(bookkeeping)};
}

void bench_size(const std::shared_ptr<const Model>& model, const std::string& spec, int rows,
                int ticks) {
    SessionOptions options;
    options.model = spec;
    options.backend = "auto";  // where kvw run would tick
    options.capacity = rows + 2 * ticks + 4;
    Session s(options, model);
    s.start("The cache remembers");
    auto start = Clock::now();
    s.apply_now(fill_actions(s.state().rows(0), rows, model->config.vocab_size));
    std::fprintf(stderr, "[bench tick] %s: filled %d x %d rows in %.1f s\n", spec.c_str(),
                 s.state().n_layers(), s.state().rows(0), ms_since(start) / 1e3);
    (void)s.frame();  // the first Frame copies every chunk: not a tick's cost

    start = Clock::now();
    (void)s.state().state_hash_from_scratch();
    const double hash_full = ms_since(start);
    start = Clock::now();
    (void)s.state().check_invariants_full();
    const double invariants_full = ms_since(start);
    // The checkpoint the session takes every `spacing` ticks (ARCHITECTURE §16), which the
    // medians of a few ticks do not show: the first copies the whole state, a later one what
    // changed since the one before it (timed after the ticks below).
    start = Clock::now();
    const SessionCheckpoint first_checkpoint(s);
    const double whole_copy = ms_since(start);
    const int spacing = s.checkpoints().spacing();

    for (const bool guard : {true, false}) {
        s.set_guard(guard);
        const TickCosts c = time_ticks(s, ticks);
        std::printf(
            "%-17s %2d x %6d rows  guard %-3s  forward %7.2f ms  tick %7.2f ms  Frame %5.2f ms  "
            "bookkeeping %6.2f ms = %5.1f %% of forward  (step 2 brightness %.2f, step 3 %.2f; "
            "all but the forward pass %.2f ms = %.1f %%)\n",
            spec.c_str(), s.state().n_layers(), s.state().rows(0), guard ? "on" : "off", c.forward,
            c.tick, c.frame, c.bookkeeping, 100.0 * c.bookkeeping / c.forward, c.brightness,
            c.propose, c.beside_forward, 100.0 * c.beside_forward / c.forward);
    }
    std::printf("%-17s %2d x %6d rows  from scratch: state digest %.2f ms, invariants %.2f ms\n",
                spec.c_str(), s.state().n_layers(), s.state().rows(0), hash_full, invariants_full);
    start = Clock::now();
    { const SessionCheckpoint checkpoint(s, &first_checkpoint); }
    const double checkpoint = ms_since(start);
    if (spacing > 0)
        std::printf(
            "%-17s %2d x %6d rows  checkpoint %.2f ms every %d ticks = %.2f ms a tick (%d ticks "
            "after the one before it; the first, a whole copy: %.2f ms)\n",
            spec.c_str(), s.state().n_layers(), s.state().rows(0), checkpoint, spacing,
            checkpoint / spacing, 2 * ticks, whole_copy);
    std::fflush(stdout);
}

int run_bench_tick(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    const int ticks = int(args.get_count("ticks", 1000));
    if (ticks < 1) throw UsageError("--ticks must be >= 1");
    std::vector<int> sizes;
    for (const std::string& word : split_list(args.get("rows")))
        sizes.push_back(int(parse_count("--rows", word, 1 << 20)));

    const std::string thin = "synthetic:thin-22";
    const std::shared_ptr<const Model> thin_model = load_model(thin);
    for (int rows : sizes) {
        if (rows + 2 * ticks + 4 > thin_model->config.max_context || rows < kPromptRows)
            throw UsageError("--rows: " + std::to_string(rows) + " is not within [" +
                             std::to_string(kPromptRows) + ", " +
                             std::to_string(thin_model->config.max_context - 2 * ticks - 4) + "]");
        bench_size(thin_model, thin, rows, ticks);
    }
    // The default model's context is short: its ticks at the longest it holds.
    const std::string spec = args.get("model");
    const std::shared_ptr<const Model> model = load_model(spec);
    const int rows = model->config.max_context - 2 * ticks - 4;
    if (rows >= kPromptRows) bench_size(model, spec, rows, ticks);
    return 0;
}

}  // namespace

CommandSpec bench_tick_command() {
    return {"bench tick",
            "",
            "a tick's bookkeeping (state digest, invariants, snapshot, Frame) against its forward "
            "pass, at long contexts",
            {{"rows", "N,N,...", "8192,32768,100000", "rows per layer of the thin 22-layer model"},
             {"ticks", "N", "5", "ticks timed per size and guard setting (medians)"},
             model_option()},
            run_bench_tick};
}

}  // namespace kvw::cli
