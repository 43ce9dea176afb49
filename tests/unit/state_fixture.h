#pragma once
// Shared by the test_state_* executables: the synthetic tiny model on a one-thread CPU backend
// (CI has two cores) and a small-capacity StateManager over it, in a cache layout a test can
// sweep.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "core/backend/backend.h"
#include "core/engine/transformer.h"
#include "core/model/model_loader.h"
#include "core/state/state_manager.h"

Q_DECLARE_METATYPE(kvw::CacheLayout)

namespace kvw::test {

struct TinyEngine {
    std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    std::unique_ptr<Backend> backend = make_cpu_backend(1);
    Transformer engine{model, *backend};

    int vocab() const { return model->config.vocab_size; }
};

inline TinyEngine& tiny() {
    static TinyEngine e;
    return e;
}

// The cache layout make_state gives. A test class runs each of its tests once per layout with
//   void initTestCase_data() { add_layout_rows(); }
//   void init() { use_layout_row(); }
inline CacheLayout& fixture_layout() {
    static CacheLayout layout = CacheLayout::Contiguous;
    return layout;
}

inline constexpr CacheLayout kAllLayouts[] = {CacheLayout::Contiguous, CacheLayout::BatchSplice,
                                              CacheLayout::Indirection};

inline void add_layout_rows() {
    QTest::addColumn<CacheLayout>("layout");
    for (CacheLayout l : kAllLayouts) QTest::newRow(cache_layout_name(l)) << l;
}

inline void use_layout_row() {
    QFETCH_GLOBAL(CacheLayout, layout);
    fixture_layout() = layout;
}

inline StateManager make_state(int capacity, RopePolicy policy = RopePolicy::FinalIndex) {
    return StateManager(tiny().engine, StateOptions{capacity, policy, true, fixture_layout()});
}

inline std::vector<int32_t> random_tokens(std::mt19937& rng, int n) {
    std::uniform_int_distribution<int32_t> pick(3, tiny().vocab() - 1);
    std::vector<int32_t> out(static_cast<size_t>(n));
    for (int32_t& t : out) t = pick(rng);
    return out;
}

// Largest row drift over every layer and row, K and V.
inline float max_drift(const DriftReport& d) {
    float m = 0.0f;
    for (const LayerDrift& l : d.layers)
        for (size_t r = 0; r < l.k.size(); ++r) m = std::max({m, l.k[r], l.v[r]});
    return m;
}

}  // namespace kvw::test
