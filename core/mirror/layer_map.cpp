#include "core/mirror/layer_map.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "core/mirror/revision.h"

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

LayerMaps::LayerMaps(size_t n_layers) : maps_(n_layers), revisions_(n_layers) {
    for (uint64_t& revision : revisions_) revision = next_revision();
}

LayerMap& LayerMaps::edit(size_t layer) {
    LayerMap& map = maps_.at(layer);
    revisions_[layer] = next_revision();
    return map;
}

void LayerMaps::assign(std::vector<LayerMap> maps) {
    maps_ = std::move(maps);
    revisions_.resize(maps_.size());
    for (uint64_t& revision : revisions_) revision = next_revision();
}

}  // namespace kvw
