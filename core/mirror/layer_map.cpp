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

}  // namespace kvw
