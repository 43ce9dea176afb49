#pragma once
// Shared by the tests that run the same commands on two devices and compare them after each
// (test_remote_rows, tests/gpu/test_cuda_tick_stream): the layouts they run over, the session
// each side gets and the commands' building blocks.
#include <QtTest>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "core/cache/cache_layout.h"
#include "core/cache/ring_options.h"
#include "core/session/session.h"

namespace kvw::test {

// The cache layouts, a data row each (the ring once per mode): columns "layout" (a CacheLayout)
// and "ring_mode" (a RingMode, or -1 for the other layouts).
inline void add_layout_rows() {
    QTest::addColumn<int>("layout");
    QTest::addColumn<int>("ring_mode");
    QTest::newRow("contiguous") << int(CacheLayout::Contiguous) << -1;
    QTest::newRow("batch_splice") << int(CacheLayout::BatchSplice) << -1;
    QTest::newRow("indirection") << int(CacheLayout::Indirection) << -1;
    QTest::newRow("ring roll") << int(CacheLayout::Ring) << int(RingMode::Roll);
    QTest::newRow("ring pointer") << int(CacheLayout::Ring) << int(RingMode::Pointer);
    QTest::newRow("ring lut") << int(CacheLayout::Ring) << int(RingMode::Lut);
}

// A session on synthetic:tiny (`model`, loaded once for both sides), 64 rows, seed 5.
inline std::unique_ptr<Session> tiny_session_on(const std::shared_ptr<const Model>& model,
                                                const char* backend) {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.backend = backend;
    o.capacity = 64;
    o.sampling.seed = 5;
    return std::make_unique<Session>(o, model);
}

// A command forcing n tokens, next, next + 1, ...: `next` as it is when the command runs, which
// the test moves on between commands.
inline std::function<void(Session&)> forced_steps(const int32_t& next, int n) {
    return [&next, n](Session& s) {
        for (int i = 0; i < n; ++i) s.step_forced(next + i);
    };
}

inline Action delete_row(int row, std::vector<int> layers = {}) {
    return Action{DeleteAction{row}, std::move(layers)};
}

}  // namespace kvw::test
