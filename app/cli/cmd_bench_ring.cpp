// kvw bench ring: what each ring mode (docs/ARCHITECTURE.md §17) costs per update and per read
// at a fixed window, against the memmove / memcpy of the whole window measured in the same run.
// The layout is driven as the StateManager drives it: a full ring first drops its oldest rows
// (remove_range at the first ring row), then appends the decode block. Storage-type costs (encode,
// decode, perplexity) are `kvw bench kv-types`.
#include <cstdio>
#include <cstring>
#include <random>

#include "bench_timing.h"
#include "commands.h"
#include "core/cache/kv_storage.h"
#include "core/cache/ring_layout.h"
#include "core/cache/row_buffer.h"

namespace kvw::cli {
namespace {

struct Measure {
    double update_us = 0, read_us = 0;
    double update_bytes = 0, read_bytes = 0;  // moved or assembled per call
};

Measure bench_mode(RingMode mode, int T, int block, int kv_dim, KvStorage storage, int updates) {
    RingLayout ring(1, kv_dim, T, storage, RingOptions{mode, 0, block, false});
    std::mt19937 rng(1);
    std::normal_distribution<float> value(0.0f, 1.0f);
    std::vector<float> rows(size_t(T) * size_t(kv_dim));
    for (float& x : rows) x = value(rng);
    ring.append(0, rows.data(), rows.data(), T);  // full from the start
    Measure m;
    const uint64_t moved0 = ring.bytes_moved(), assembled0 = ring.bytes_assembled();
    double update_ms = 0, read_ms = 0;
    volatile float sink = 0;
    for (int u = 0; u < updates; ++u) {
        const float* written = rows.data() + size_t(u * block % (T - block + 1)) * size_t(kv_dim);
        BenchClock::time_point start = BenchClock::now();
        ring.remove_range(0, 0, block);
        ring.append(0, written, written, block);
        update_ms += ms_since(start);
        start = BenchClock::now();
        const LayerContext ctx = ring.view(0);
        read_ms += ms_since(start);
        sink = sink + *static_cast<const float*>(ctx.k.row(ctx.physical_row(T - 1), kv_dim));
    }
    m.update_us = 1e3 * update_ms / updates;
    m.read_us = 1e3 * read_ms / updates;
    m.update_bytes = double(ring.bytes_moved() - moved0) / updates;
    m.read_bytes = double(ring.bytes_assembled() - assembled0) / updates;
    return m;
}

// The bound: moving (roll) or copying (an assembly) the whole window once, same bytes.
void bench_bound(size_t bytes, int reps, double& memmove_us, double& memcpy_us) {
    std::vector<uint8_t> a(bytes + 4096, 1), b(bytes, 2);
    double mv = 1e30, cp = 1e30;
    for (int r = 0; r < reps; ++r) {
        BenchClock::time_point start = BenchClock::now();
        std::memmove(a.data(), a.data() + 4096, bytes);
        mv = std::min(mv, ms_since(start));
        start = BenchClock::now();
        std::memcpy(b.data(), a.data(), bytes);
        cp = std::min(cp, ms_since(start));
    }
    memmove_us = 1e3 * mv;
    memcpy_us = 1e3 * cp;
}

int run_bench_ring(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    const int T = int(args.get_count("size", 1 << 20));
    const int kv_dim = int(args.get_count("kv-dim", 1 << 16));
    const int updates = int(args.get_count("updates", 1 << 24));
    const KvType k = named_option(args, "k-type", kKvTypeNames);
    const KvType v = named_option(args, "v-type", kKvTypeNames);
    const int groups = int(args.get_count("groups", 1 << 16));
    if (T < 2 || kv_dim < 1 || updates < 1 || groups < 1 || kv_dim % groups != 0)
        throw UsageError("--size >= 2, --kv-dim >= 1, --updates >= 1, --groups dividing --kv-dim");
    // --frames: decode block sizes (tokens per block), under the option's historic name.
    std::vector<int> blocks;
    for (const std::string& f : split_list(args.get("frames"))) {
        const int n = std::atoi(f.c_str());
        if (n < 1 || n >= T || T % n != 0)
            throw UsageError("--frames: " + f + " must divide --size and be below it");
        blocks.push_back(n);
    }
    const KvStorage storage{k, v, groups};
    // A row pair as it moves: K, V, scales and the clip counters (RowBuffer::slot_bytes).
    const size_t slot = storage.row_bytes(kv_dim) + RowBuffer::counter_bytes(storage);
    const size_t window = size_t(T) * slot;
    double memmove_us = 0, memcpy_us = 0;
    bench_bound(window, 20, memmove_us, memcpy_us);
    std::printf(
        "kvw bench ring: T %d rows, kv_dim %d, K %s / V %s, %.1f KiB a row pair, "
        "window %.2f MiB, %d updates each\n",
        T, kv_dim, kv_type_name(k), kv_type_name(v), double(slot) / 1024.0,
        double(window) / (1 << 20), updates);
    std::printf("bound: memmove of the window %.1f us, memcpy %.1f us (best of 20)\n", memmove_us,
                memcpy_us);
    std::printf("%-8s %5s %12s %14s %10s %14s %10s\n", "mode", "tpf", "update us", "update bytes",
                "read us", "read bytes", "x memmove");
    for (int block : blocks)
        for (RingMode mode : {RingMode::Roll, RingMode::Pointer, RingMode::Lut}) {
            const Measure m = bench_mode(mode, T, block, kv_dim, storage, updates);
            std::printf("%-8s %5d %12.2f %14.0f %10.2f %14.0f %10.2f\n", ring_mode_name(mode),
                        block, m.update_us, m.update_bytes, m.read_us, m.read_bytes,
                        (m.update_us + m.read_us) / memmove_us);
        }
    return 0;
}

}  // namespace

CommandSpec bench_ring_command() {
    return {"bench ring",
            "",
            "ring layout modes: us and bytes moved per update and per read against memmove",
            {{"size", "T", "4096", "ring rows (one layer)"},
             {"frames", "N,N", "1,16,64", "tokens per frame (rows per update) to measure"},
             {"kv-dim", "D", "256", "values per K (and V) row"},
             {"groups", "G", "4", "scales per row for int8 / fp8 (KV heads)"},
             {"k-type", "TYPE", "f32", std::string("K storage: ") + names_in(kKvTypeNames, "|")},
             {"v-type", "TYPE", "f32", "V storage, as --k-type"},
             {"updates", "N", "2000", "updates (and reads) timed per mode and frame size"}},
            run_bench_ring};
}

}  // namespace kvw::cli
