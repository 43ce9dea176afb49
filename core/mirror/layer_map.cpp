#include "core/mirror/layer_map.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace kvw {

void LayerMap::insert(int row, std::span<const int64_t> ids, std::span<const int32_t> phases) {
    if (row < 0 || row > rows() || ids.size() != phases.size())
        throw std::out_of_range("layer map: insert of " + std::to_string(ids.size()) + " rows at " +
                                std::to_string(row) + " of " + std::to_string(rows()));
    pos2ledger.insert(pos2ledger.begin() + row, ids.begin(), ids.end());
    rope_pos.insert(rope_pos.begin() + row, phases.begin(), phases.end());
}

void LayerMap::remove(int row) {
    if (row < 0 || row >= rows())
        throw std::out_of_range("layer map: remove row " + std::to_string(row) + " of " +
                                std::to_string(rows()));
    pos2ledger.erase(pos2ledger.begin() + row);
    rope_pos.erase(rope_pos.begin() + row);
}

void LayerMap::clear() {
    pos2ledger.clear();
    rope_pos.clear();
}

LayerMaps::LayerMaps(size_t n_layers) : maps_(n_layers), revisions_(n_layers) {}

LayerMap& LayerMaps::edit(size_t layer, int first_row) {
    LayerMap& map = maps_.at(layer);
    first_row = std::clamp(first_row, 0, map.rows());
    if (!journal_.empty()) {
        SavedRows& saved = journal_[layer];
        if (first_row < saved.kept) {  // rows [first_row, kept) are still as they were
            const auto ids = map.pos2ledger.begin();
            const auto phases = map.rope_pos.begin();
            saved.pos2ledger.insert(saved.pos2ledger.begin(), ids + first_row, ids + saved.kept);
            saved.rope_pos.insert(saved.rope_pos.begin(), phases + first_row, phases + saved.kept);
            saved.kept = first_row;
        }
    }
    revisions_[layer].renew_from(first_row);
    return map;
}

void LayerMaps::open_journal() {
    if (!journal_.empty()) throw std::logic_error("layer maps: a journal is already open");
    journal_.resize(maps_.size());
    for (size_t l = 0; l < maps_.size(); ++l) journal_[l].kept = maps_[l].rows();
}

void LayerMaps::roll_back() {
    if (journal_.empty()) throw std::logic_error("layer maps: no journal to roll back");
    std::vector<SavedRows> journal = std::move(journal_);
    journal_.clear();
    for (size_t l = 0; l < journal.size(); ++l) {
        const SavedRows& saved = journal[l];
        LayerMap& map = maps_[l];
        if (map.rows() == saved.kept && saved.pos2ledger.empty()) continue;  // never edited
        map.pos2ledger.resize(size_t(saved.kept));
        map.rope_pos.resize(size_t(saved.kept));
        map.pos2ledger.insert(map.pos2ledger.end(), saved.pos2ledger.begin(),
                              saved.pos2ledger.end());
        map.rope_pos.insert(map.rope_pos.end(), saved.rope_pos.begin(), saved.rope_pos.end());
        revisions_[l].renew_from(saved.kept);
    }
}

LayerMaps LayerMaps::frozen(const LayerMaps* earlier) const {
    if (is_frozen() || journal_open())
        throw std::logic_error("layer maps: only maps with no journal open can be frozen");
    if (earlier && (!earlier->is_frozen() || earlier->size() != size())) earlier = nullptr;
    LayerMaps copy(0);
    copy.maps_.resize(size());
    copy.revisions_ = revisions_;
    copy.frozen_.resize(size());
    constexpr size_t kBlock = kRevisionBlockRows;
    for (size_t l = 0; l < size(); ++l) {
        const LayerMap& map = maps_[l];
        FrozenLayer& layer = copy.frozen_[l];
        layer.ids = map.pos2ledger.size();
        layer.phases = map.rope_pos.size();
        const auto* before = earlier ? &earlier->frozen_[l].blocks : nullptr;
        for (size_t first = 0, b = 0; first < std::max(layer.ids, layer.phases);
             first += kBlock, ++b) {
            const size_t ids = std::min(kBlock, layer.ids - std::min(first, layer.ids));
            const size_t phases = std::min(kBlock, layer.phases - std::min(first, layer.phases));
            const uint64_t revision = revisions_[l].block(b);
            if (before && b < before->size()) {
                const FrozenBlock& e = *(*before)[b];
                if (e.revision == revision && e.pos2ledger.size() >= ids &&
                    e.rope_pos.size() >= phases) {
                    layer.blocks.push_back((*before)[b]);
                    continue;
                }
            }
            auto block = std::make_shared<FrozenBlock>();
            block->revision = revision;
            block->pos2ledger.assign(map.pos2ledger.begin() + ptrdiff_t(first),
                                     map.pos2ledger.begin() + ptrdiff_t(first + ids));
            block->rope_pos.assign(map.rope_pos.begin() + ptrdiff_t(first),
                                   map.rope_pos.begin() + ptrdiff_t(first + phases));
            layer.blocks.push_back(std::move(block));
        }
    }
    return copy;
}

LayerMaps LayerMaps::thawed() const {
    if (!is_frozen()) throw std::logic_error("layer maps: thawed() of maps that are not frozen");
    LayerMaps live(size());
    live.revisions_ = revisions_;
    for (size_t l = 0; l < size(); ++l) {
        const FrozenLayer& layer = frozen_[l];
        LayerMap& map = live.maps_[l];
        map.pos2ledger.reserve(layer.ids);
        map.rope_pos.reserve(layer.phases);
        for (const auto& block : layer.blocks) {
            const size_t ids =
                std::min(block->pos2ledger.size(), layer.ids - map.pos2ledger.size());
            const size_t phases =
                std::min(block->rope_pos.size(), layer.phases - map.rope_pos.size());
            map.pos2ledger.insert(map.pos2ledger.end(), block->pos2ledger.begin(),
                                  block->pos2ledger.begin() + ptrdiff_t(ids));
            map.rope_pos.insert(map.rope_pos.end(), block->rope_pos.begin(),
                                block->rope_pos.begin() + ptrdiff_t(phases));
        }
    }
    return live;
}

void LayerMaps::for_each_frozen_block(const std::function<void(const void*, uint64_t)>& f) const {
    for (const FrozenLayer& layer : frozen_)
        for (const auto& block : layer.blocks)
            f(block.get(), block->pos2ledger.size() * sizeof(int64_t) +
                               block->rope_pos.size() * sizeof(int32_t));
}

}  // namespace kvw
