#include "cell_session.h"

#include <algorithm>

namespace kvw {

bool scored_without_session(const SweepConfig& c) {
    return c.full() && c.k_type == KvType::F32 && c.v_type == KvType::F32;
}

SessionOptions cell_session_options(const SweepPlan& plan, const SweepCell& cell) {
    const SweepConfig& c = cell.config;
    SessionOptions so;
    so.model = plan.models.at(size_t(cell.model)).spec;
    so.backend = plan.backend;
    so.capacity = plan.ctx;
    so.proposer = c.full() ? "manual" : c.policy;
    so.policy.budget = c.budget;
    so.policy.seed = plan.seed;
    if (c.policy == "smartkv" && !plan.gate.empty()) so.policy.gate = plan.gate;
    so.k_type = c.k_type;
    so.v_type = c.v_type;
    so.layout = c.full() ? CacheLayout::Contiguous : c.layout;
    so.rope_policy = c.full() ? RopePolicy::Original : c.rope;
    return so;
}

std::span<const int32_t> first_prompt(std::span<const int32_t> tokens, int ctx) {
    return tokens.first(std::min(tokens.size(), size_t(ctx / 2 + 1)));
}

}  // namespace kvw
