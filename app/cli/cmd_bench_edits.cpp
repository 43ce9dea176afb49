// kvw bench edits: what one replace_pair (2 rows -> 1 token) costs in each cache layout.
//   1. Row movement alone: the cache calls of one replace on every layer of a cache with the
//      model's geometry, filled with synthetic K/V, against a torch.cat-style copy and against
//      a memmove of the same bytes in a preallocated buffer (the bound for moving them at all),
//      taken two ways: "cold", one memmove of the total through a buffer that size (rows that
//      come from memory, as a single pass over every layer's rows does), and "warm", memmoves of
//      one layer's K block at a time, re-using that block (rows that are in cache, as the
//      second and third pass of a contiguous replace over the same rows of a layer are).
//   2. The full StateManager::replace_pair on a smaller real prefill; the insert's forward pass
//      (the same in every layout, and the larger part) is timed on its own beside it.
//   3. rebuild_from_mirror against recompute_suffix from the middle row.
// Movement is measured on synthetic rows because filling 2,048 real rows of tinyllama-shape by
// prefill takes most of a minute on two cores; moving a row costs the same whatever it holds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "bench_timing.h"
#include "commands.h"
#include "common_options.h"
#include "core/backend/backend_registry.h"
#include "core/cache/indirection_layout.h"
#include "core/cache/kv_layout.h"
#include "core/engine/transformer.h"
#include "core/model/model_loader.h"
#include "core/state/state_manager.h"

namespace kvw::cli {
namespace {

using Clock = BenchClock;

double us_since(Clock::time_point start) { return 1000.0 * ms_since(start); }

double mean(const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

constexpr CacheLayout kLayouts[] = {CacheLayout::Contiguous, CacheLayout::BatchSplice,
                                    CacheLayout::Indirection};

struct Geometry {
    int layers = 0;
    int kv_dim = 0;
    int rows = 0;      // before each edit
    int capacity = 0;  // per layer
};

// One way of editing, timed: microseconds per edit and bytes of existing rows moved per edit.
struct Timing {
    std::string name;
    std::vector<double> us;
    double bytes_per_edit = 0;
    std::string note;
};

// n rows of kv_dim floats, deterministic and nonzero (the movement does not depend on them).
std::vector<float> synthetic_rows(int n, int kv_dim, int salt) {
    std::vector<float> rows(size_t(n) * size_t(kv_dim));
    for (size_t i = 0; i < rows.size(); ++i)
        rows[i] = float((i * 2654435761u + unsigned(salt)) % 1000) / 500.0f - 1.0f;
    return rows;
}

// remove(p1 + 1), remove(p1), insert(p1, one row) on every layer, as StateManager::replace_pair
// calls them, then a view of every layer as the next forward takes it (where batch-splice makes
// its one pass). After each timed edit an untimed append puts the row count back, so every edit
// sees g.rows rows. Indirection runs until it has compacted at least once, so that its mean
// carries the compaction's cost.
Timing time_layout(CacheLayout layout, const Geometry& g, int p1, int reps) {
    const auto cache = make_kv_layout(layout, g.layers, g.kv_dim, g.capacity);
    const std::vector<float> fill = synthetic_rows(g.rows, g.kv_dim, 1);
    const std::vector<float> fresh = synthetic_rows(1, g.kv_dim, 2);
    for (int l = 0; l < g.layers; ++l) cache->append(l, fill.data(), fill.data(), g.rows);
    auto edit = [&] {
        for (int l = 0; l < g.layers; ++l) {
            cache->remove(l, p1 + 1);
            cache->remove(l, p1);
            cache->insert(l, p1, fresh.data(), fresh.data(), 1);
        }
        for (int l = 0; l < g.layers; ++l) cache->view(l);
    };
    auto refill = [&] {
        for (int l = 0; l < g.layers; ++l) cache->append(l, fresh.data(), fresh.data(), 1);
    };
    edit();  // warm-up: pages touched, batch-splice's staging allocated
    refill();
    const auto* indirection = dynamic_cast<const IndirectionLayout*>(cache.get());
    const int64_t compactions_before = indirection ? indirection->compactions() : 0;
    const uint64_t bytes_before = cache->bytes_moved();
    Timing t{cache_layout_name(layout), {}, 0, {}};
    for (int i = 0; i < reps || (indirection && indirection->compactions() == compactions_before &&
                                 i < 4 * g.capacity);
         ++i) {
        const auto start = Clock::now();
        edit();
        t.us.push_back(us_since(start));
        refill();
    }
    t.bytes_per_edit = double(cache->bytes_moved() - bytes_before) / double(t.us.size());
    if (indirection)
        t.note = std::to_string(indirection->compactions() - compactions_before) +
                 " layer compactions in " + std::to_string(t.us.size()) + " edits";
    return t;
}

// A tensor as torch.cat makes them: a fresh allocation, not zeroed, exactly the rows it holds.
struct Tensor {
    std::unique_ptr<float[]> data;
    int rows = 0;
};

// torch.cat((x[:row], add, x[row + drop:])): a new tensor with every kept row copied into it.
Tensor cat_splice(const Tensor& x, int kv_dim, int row, int drop, const float* add, int n_add,
                  uint64_t& bytes) {
    const size_t d = size_t(kv_dim);
    Tensor out{std::unique_ptr<float[]>(new float[size_t(x.rows - drop + n_add) * d]),
               x.rows - drop + n_add};
    float* at = std::copy_n(x.data.get(), size_t(row) * d, out.data.get());
    at = std::copy_n(add, size_t(n_add) * d, at);
    std::copy_n(x.data.get() + size_t(row + drop) * d, size_t(x.rows - row - drop) * d, at);
    bytes += size_t(x.rows - drop) * d * sizeof(float);
    return out;
}

// The same replace done the way a PyTorch cache does it: each of the three steps builds new K
// and V tensors of every layer with torch.cat.
Timing time_torch_cat(const Geometry& g, int p1, int reps) {
    const std::vector<float> fill = synthetic_rows(g.rows, g.kv_dim, 1);
    const std::vector<float> fresh = synthetic_rows(1, g.kv_dim, 2);
    std::vector<Tensor> tensors(size_t(2 * g.layers));  // K and V of every layer
    uint64_t bytes = 0;
    for (Tensor& t : tensors)
        t = cat_splice(Tensor{nullptr, 0}, g.kv_dim, 0, 0, fill.data(), g.rows, bytes);
    auto edit = [&] {
        for (Tensor& t : tensors) {
            t = cat_splice(t, g.kv_dim, p1 + 1, 1, nullptr, 0, bytes);
            t = cat_splice(t, g.kv_dim, p1, 1, nullptr, 0, bytes);
            t = cat_splice(t, g.kv_dim, p1, 0, fresh.data(), 1, bytes);
        }
    };
    uint64_t ignored = 0;
    auto refill = [&] {
        for (Tensor& t : tensors) t = cat_splice(t, g.kv_dim, t.rows, 0, fresh.data(), 1, ignored);
    };
    edit();
    refill();
    bytes = 0;
    Timing t{"torch.cat copy", {}, 0, "3 new tensors per K/V per edit"};
    for (int i = 0; i < reps; ++i) {
        const auto start = Clock::now();
        edit();
        t.us.push_back(us_since(start));
        refill();
    }
    t.bytes_per_edit = double(bytes) / double(reps);
    return t;
}

// The least time moving `bytes` can take: memmoves, one row over, of at most `block` bytes at
// a time from the start of a buffer allocated and touched beforehand (block + 4096 bytes).
double memmove_bound_us(std::vector<char>& buffer, size_t bytes, size_t block, int reps) {
    std::vector<double> us;
    for (int i = 0; i < reps; ++i) {
        const auto start = Clock::now();
        for (size_t left = bytes; left > 0; left -= std::min(left, block))
            std::memmove(buffer.data() + 4096, buffer.data(), std::min(left, block));
        us.push_back(us_since(start));
    }
    return median(us);
}

void print_movement(const char* where, int p1, const std::vector<Timing>& rows,
                    std::vector<char>& buffer, size_t block, int reps) {
    std::printf("\n%s: replace_pair(%d, %d) -> 1 token\n", where, p1, p1 + 1);
    std::printf("  %-15s %10s %10s %13s %13s %13s %7s %7s  %s\n", "layout", "median us", "mean us",
                "MB moved/edit", "cold bound us", "warm bound us", "x cold", "x warm", "note");
    for (const Timing& t : rows) {
        const size_t bytes = size_t(t.bytes_per_edit);
        const double cold = memmove_bound_us(buffer, bytes, bytes, reps);
        const double warm = memmove_bound_us(buffer, bytes, block, reps);
        std::printf("  %-15s %10.1f %10.1f %13.3f %13.1f %13.1f %7.1f %7.1f  %s\n", t.name.c_str(),
                    median(t.us), mean(t.us), t.bytes_per_edit / 1e6, cold, warm,
                    median(t.us) / std::max(cold, 0.01), median(t.us) / std::max(warm, 0.01),
                    t.note.c_str());
    }
}

void bench_movement(const Geometry& g, int reps) {
    std::printf(
        "\n== 1. Row movement alone (cache calls on layout objects, synthetic K/V, no "
        "forward)\n");
    std::printf(
        "%d layers x kv_dim %d, f32 K and V (%.1f KiB per row per layer), %d rows, "
        "capacity %d; each edit = remove(p1+1), remove(p1), insert(p1) on every layer + "
        "a view of every layer (where batch_splice makes its pass); an untimed append "
        "after each edit keeps %d rows; >= %d edits\n",
        g.layers, g.kv_dim, 2.0 * g.kv_dim * sizeof(float) / 1024.0, g.rows, g.capacity, g.rows,
        reps);
    const size_t block = size_t(g.rows) * size_t(g.kv_dim) * sizeof(float);
    std::printf(
        "MB moved = existing K/V rows moved per edit (indirection: + index entries "
        "shifted; torch.cat: every row copied into new tensors). Bounds, measured in "
        "this run in a preallocated buffer: cold = one memmove of those bytes; warm = "
        "memmoves of one layer's K block (%.0f KiB) at a time over the same block. "
        "x = median / bound. The mean includes indirection's compactions.\n",
        double(block) / 1024.0);
    const int positions[] = {g.rows / 2, std::min(8, g.rows - 2)};
    const char* names[] = {"middle", "near the start"};
    std::vector<std::vector<Timing>> tables;
    size_t most = block;
    for (int p1 : positions) {
        std::vector<Timing> table;
        for (CacheLayout layout : kLayouts) table.push_back(time_layout(layout, g, p1, reps));
        table.push_back(time_torch_cat(g, p1, reps));
        for (const Timing& t : table) most = std::max(most, size_t(t.bytes_per_edit));
        tables.push_back(std::move(table));
    }
    std::vector<char> buffer(most + 4096, 1);
    for (size_t i = 0; i < tables.size(); ++i)
        print_movement(names[i], positions[i], tables[i], buffer, block, reps);
}

struct FullRun {
    std::string layout;
    double prefill_s = 0;
    // [middle, near the start]: the replace, the insert's forward alone just before it, and
    // their difference (taken pairwise, so that load on the machine cancels out)
    std::vector<double> replace_ms[2], forward_ms[2], rest_ms[2];
    double bytes[2] = {0, 0};
};

// The forward pass an insert at p1 makes (one token attending to rows [0, p1) of every layer):
// identical in every layout, timed apart from the replace that contains it.
double insert_forward_ms(const StateManager& s, int p1) {
    const std::vector<LayerContext> context = s.context_before(p1);
    const std::vector<Item> items{Item::of_token(s.tokens(0)[0])};
    const std::vector<int32_t> phase{p1};
    const auto start = Clock::now();
    s.engine().forward(items, phase, context, ForwardOptions{false, false});
    return ms_since(start);
}

// Full StateManager::replace_pair calls on real K/V, each followed by a view of every layer (the
// next forward's read, where batch-splice makes its pass).
FullRun time_replaces(StateManager& s, const int (&positions)[2], int reps) {
    FullRun run;
    run.layout = cache_layout_name(s.cache().layout());
    int64_t tick = 1;
    for (int p = 0; p < 2; ++p) {
        uint64_t bytes = 0;
        for (int i = 0; i < reps; ++i) {
            const double forward = insert_forward_ms(s, positions[p]);
            const std::vector<int32_t> token{s.tokens(0)[size_t(i)]};
            const uint64_t bytes_before = s.cache().bytes_moved();
            const auto start = Clock::now();
            s.replace_pair({}, positions[p], positions[p] + 1, token, tick++);
            for (int l = 0; l < s.n_layers(); ++l) s.cache().view(l);
            const double replace = ms_since(start);
            bytes += s.cache().bytes_moved() - bytes_before;
            run.replace_ms[p].push_back(replace);
            run.forward_ms[p].push_back(forward);
            run.rest_ms[p].push_back(replace - forward);
        }
        run.bytes[p] = double(bytes) / reps;
    }
    return run;
}

void bench_state(const Transformer& engine, const std::string& model_name, int prefill_rows,
                 int reps) {
    const int vocab = engine.model().config.vocab_size;
    std::vector<int32_t> prompt(static_cast<size_t>(prefill_rows));
    for (int i = 0; i < prefill_rows; ++i)  // spread over the vocabulary, fixed
        prompt[size_t(i)] = 3 + int32_t((uint64_t(i) * 7919u) % uint64_t(vocab - 3));
    const int positions[2] = {prefill_rows / 2, std::min(8, prefill_rows - 2)};

    std::printf(
        "\n== 2. Full StateManager::replace_pair (real K/V: %s, prefill of %d rows, "
        "guard off), then a view of every layer; median of %d\n",
        model_name.c_str(), prefill_rows, reps);
    std::vector<FullRun> runs;
    double rebuild_ms = 0, suffix_ms = 0;
    int rows_after = 0;
    for (CacheLayout layout : kLayouts) {
        StateManager s(engine,
                       StateOptions{2 * prefill_rows, RopePolicy::FinalIndex, false, layout});
        auto start = Clock::now();
        s.append(prompt, EntryKind::Prompt, 0);
        const double prefill_s = ms_since(start) / 1000.0;
        runs.push_back(time_replaces(s, positions, reps));
        runs.back().prefill_s = prefill_s;
        if (layout != CacheLayout::Contiguous) continue;
        // Numeric alignment, once: the forward passes are the same in every layout.
        rows_after = s.rows(0);
        start = Clock::now();
        s.rebuild_from_mirror();
        rebuild_ms = ms_since(start);
        start = Clock::now();
        s.recompute_suffix(positions[0]);
        suffix_ms = ms_since(start);
    }

    std::printf(
        "prefill of %d rows: %.1f s (contiguous layout); forward = the insert's pass "
        "alone (1 token over p1 rows), timed just before each replace; rest = replace - "
        "forward, pairwise: cache calls, mirror, ledger (as small as the noise of two "
        "forward passes; part 1 times the row movement on its own)\n",
        prefill_rows, runs[0].prefill_s);
    std::printf("  %-15s %-16s %12s %12s %10s %13s\n", "layout", "position", "replace ms",
                "forward ms", "rest ms", "MB moved/edit");
    const char* names[] = {"middle", "near the start"};
    for (const FullRun& r : runs)
        for (int p = 0; p < 2; ++p) {
            const std::string where = std::string(names[p]) + " " + std::to_string(positions[p]);
            std::printf("  %-15s %-16s %12.2f %12.2f %10.2f %13.3f\n", r.layout.c_str(),
                        where.c_str(), median(r.replace_ms[p]), median(r.forward_ms[p]),
                        median(r.rest_ms[p]), r.bytes[p] / 1e6);
        }

    std::printf("\n== 3. Numeric alignment on the contiguous state above (%d rows)\n", rows_after);
    std::printf("  rebuild_from_mirror (all %d rows)          %10.1f ms\n", rows_after, rebuild_ms);
    std::printf("  recompute_suffix(%d) (the last %d rows)   %10.1f ms  (%.2f x the rebuild)\n",
                positions[0], rows_after - positions[0], suffix_ms, suffix_ms / rebuild_ms);
}

int run_bench_edits(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    const std::string model_name = args.get("model");
    const int rows = int(args.get_count("rows", INT32_MAX));
    const int capacity =
        args.has("capacity") ? int(args.get_count("capacity", INT32_MAX)) : 2 * rows;
    const int prefill_rows = int(args.get_count("prefill-rows", INT32_MAX));
    const int reps = int(args.get_count("reps", INT32_MAX));
    const int full_reps = int(args.get_count("full-reps", INT32_MAX));
    if (rows < 16 || prefill_rows < 16) throw UsageError("--rows and --prefill-rows must be >= 16");
    if (capacity < rows + 1) throw UsageError("--capacity must exceed --rows");
    if (reps < 1 || full_reps < 1) throw UsageError("--reps and --full-reps must be >= 1");

    auto start = Clock::now();
    const std::shared_ptr<const Model> model = load_model(model_name);
    spdlog::info("[bench] {} loaded in {:.1f} s", model_name, ms_since(start) / 1000);
    const ModelConfig& c = model->config;
    const auto backend = create_backend(args.get("backend"));
    const Transformer engine(model, *backend, capacity);

    std::printf("kvw bench edits: one replace_pair (2 rows -> 1 token) per cache layout, %s\n",
                model_name.c_str());
    bench_movement(Geometry{c.n_layers, c.kv_dim(), rows, capacity}, reps);
    bench_state(engine, model_name, prefill_rows, full_reps);
    return 0;
}

}  // namespace

CommandSpec bench_edits_command() {
    OptionSpec model = model_option();
    model.fallback = "synthetic:tinyllama-shape";  // a benchmark wants the real model's shapes
    return {"bench edits",
            "",
            "cache layouts compared on one replace_pair, against torch.cat-style copying and "
            "memmove",
            {model,
             {"rows", "N", "2048", "rows in the cache before each edit"},
             {"capacity", "N", "", "rows per layer (default twice --rows)"},
             {"prefill-rows", "N", "256", "rows of the real prefill the full edit is timed on"},
             {"reps", "N", "31", "edits timed per layout"},
             {"full-reps", "N", "5", "full replace_pair calls timed per layout"},
             backend_option("auto")},
            run_bench_edits};
}

}  // namespace kvw::cli
