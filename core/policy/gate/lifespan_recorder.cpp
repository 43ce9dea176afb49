#include "core/policy/gate/lifespan_recorder.h"

#include <string>

#include "core/policy/brightness.h"
#include "core/policy/gate/gate_key.h"
#include "core/policy/policy_error.h"

namespace kvw {

LifespanRecorder::LifespanRecorder(const StateManager& state, LifespanOptions options) {
    if (options.horizon < 1) throw PolicyInputError("lifespan horizon must be at least 1 tick");
    records_.n_layers = state.n_layers();
    records_.key_dim = state.cache().kv_dim();
    records_.key_kind = GateKeyKind::PreRope;
    records_.options = options;
    records_.layers.resize(size_t(records_.n_layers));
    watched_.resize(size_t(records_.n_layers));
    next_id_.assign(watched_.size(), 0);
}

void LifespanRecorder::begin(const StateManager& state) {
    next_id_.assign(watched_.size(), state.ledger().size());
    for (auto& w : watched_) w.clear();
}

void LifespanRecorder::observe(const StateManager& state, int64_t tick) {
    const auto& mass = state.last_attention_mass();
    const int horizon = records_.options.horizon;
    const ModelConfig& config = state.engine().model().config;
    const int kv_dim = state.cache().kv_dim();
    for (int l = 0; l < records_.n_layers; ++l) {
        const LayerMap& map = state.layer_map(l);
        if (size_t(l) >= mass.size() || mass[size_t(l)].size() != size_t(map.rows()))
            throw PolicyInputError("lifespans: tick " + std::to_string(tick) +
                                   " left no attention mass for layer " + std::to_string(l) +
                                   " (an edit moved rows); record with the full cache");
        const std::vector<float> share = attention_share(mass[size_t(l)]);
        std::map<int64_t, Watched>& watched = watched_[size_t(l)];
        int64_t& next_id = next_id_[size_t(l)];
        // Rows born this tick (ids only grow): their keys, decoded from the storage type, are
        // read together.
        std::vector<int> born;
        int64_t next = next_id;
        for (int row = 0; row < map.rows(); ++row)
            if (const int64_t id = map.pos2ledger[size_t(row)]; id >= next) {
                born.push_back(row);
                next = id + 1;
            }
        std::vector<float> keys(born.size() * size_t(kv_dim));
        state.cache().read_rows(l, born, keys.data(), nullptr);
        size_t seen = 0, births = 0;
        for (int row = 0; row < map.rows(); ++row) {
            const int64_t id = map.pos2ledger[size_t(row)];
            if (births < born.size() && born[births] == row) {
                // Its own query's attention does not count.
                const std::span<const float> k =
                    std::span(keys).subspan(births++ * size_t(kv_dim), size_t(kv_dim));
                watched.emplace(id, Watched{tick, 0,
                                            gate_key(k, map.rope_pos[size_t(row)], config,
                                                     state.engine().rope(), records_.key_kind)});
                next_id = id + 1;
                ++seen;
                continue;
            }
            auto it = watched.find(id);
            if (it == watched.end()) continue;  // a prompt token, or its record is written
            ++seen;
            const int64_t age = tick - it->second.birth;
            if (share[size_t(row)] >= records_.options.threshold) it->second.lifespan = int(age);
        }
        if (seen != watched.size())
            throw PolicyInputError("lifespans: a watched token left layer " + std::to_string(l) +
                                   " at tick " + std::to_string(tick) +
                                   "; record with the full cache");
        // Watched for the whole horizon: a record. The map is in birth order (ids grow).
        LifespanRecords::Layer& out = records_.layers[size_t(l)];
        while (!watched.empty() && tick - watched.begin()->second.birth >= horizon) {
            const Watched& w = watched.begin()->second;
            out.keys.insert(out.keys.end(), w.key.begin(), w.key.end());
            out.lifespans.push_back(float(w.lifespan));
            watched.erase(watched.begin());
        }
    }
}

size_t LifespanRecorder::censored() const {
    size_t n = 0;
    for (const auto& w : watched_) n += w.size();
    return n;
}

}  // namespace kvw
