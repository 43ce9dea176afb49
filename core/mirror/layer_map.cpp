#include "core/mirror/layer_map.h"

#include <algorithm>
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
    for (Revisions& r : revisions_) r.latest = next_revision();
}

uint64_t LayerMaps::chunk_revision(size_t layer, size_t chunk) const {
    const Revisions& r = revisions_.at(layer);
    return chunk < r.chunks.size() ? r.chunks[chunk] : r.latest;
}

LayerMap& LayerMaps::edit(size_t layer, int first_row) {
    LayerMap& map = maps_.at(layer);
    Revisions& r = revisions_[layer];
    // The chunks before first_row's keep their revisions (those past the end had `latest`);
    // first_row's and every later one take the new one.
    const size_t first_chunk = size_t(std::max(first_row, 0) / kChunkRows);
    r.chunks.resize(first_chunk, r.latest);
    r.latest = next_revision();
    return map;
}

void LayerMaps::assign(std::vector<LayerMap> maps) {
    maps_ = std::move(maps);
    revisions_.assign(maps_.size(), Revisions{});
    for (Revisions& r : revisions_) r.latest = next_revision();
}

}  // namespace kvw
