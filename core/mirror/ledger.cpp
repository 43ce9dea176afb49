#include "core/mirror/ledger.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "core/mirror/revision.h"

namespace kvw {

const char* entry_kind_name(EntryKind kind) {
    switch (kind) {
        case EntryKind::Prompt: return "prompt";
        case EntryKind::Generated: return "generated";
        case EntryKind::Replacement: return "replacement";
        case EntryKind::Inserted: return "inserted";
        case EntryKind::Gist: return "gist";
    }
    return "?";
}

bool LedgerEntry::live_anywhere() const {
    return std::find(status.begin(), status.end(), RowStatus::Live) != status.end();
}

Ledger::Ledger(int n_layers)
    : n_layers_(n_layers),
      brightness_(size_t(std::max(n_layers, 0)), ChunkedColumn<float>(size_t(kChunkRecords))),
      brightness_sums_(size_t(std::max(n_layers, 0)), 0) {}

int64_t Ledger::add(EntryKind kind, int32_t token_id, std::string piece, int64_t tick) {
    LedgerEntry e;
    e.id = size();
    e.kind = kind;
    e.token_id = token_id;
    e.piece = std::move(piece);
    e.born_tick = tick;
    e.status.assign(size_t(n_layers_), RowStatus::NeverHeld);
    e.removal.assign(size_t(n_layers_), Removal{});
    const int64_t id = e.id;
    entries_.push_back(std::move(e));
    if (id % kChunkRecords == 0) chunk_revisions_.push_back(0);
    chunk_revisions_.back() = next_revision();
    record_revisions_.push_back(chunk_revisions_.back());
    // A new record's brightness is 0.0f, whose bits are 0: the sums stay as they are.
    for (ChunkedColumn<float>& column : brightness_) column.push_back(0.0f);
    return id;
}

const LedgerEntry& Ledger::at(int64_t id) const {
    if (!contains(id))
        throw std::out_of_range("ledger: no record " + std::to_string(id) + " (size " +
                                std::to_string(size()) + ")");
    return entries_[size_t(id)];
}

LedgerEntry& Ledger::entry(int64_t id) {
    (void)at(id);  // an unknown id throws
    return entries_.mutable_at(size_t(id));
}

LedgerEntry& Ledger::changed_entry(int64_t id) {
    LedgerEntry& e = entry(id);
    const uint64_t revision = next_revision();
    chunk_revisions_[size_t(id / kChunkRecords)] = revision;
    record_revisions_.set(size_t(id), revision);
    return e;
}

void Ledger::mark_live(int64_t id, int layer) {
    LedgerEntry& e = changed_entry(id);
    e.status.at(size_t(layer)) = RowStatus::Live;
    e.died_tick = -1;
}

void Ledger::mark_removed(int64_t id, int layer, int64_t tick, RemovalCause cause) {
    LedgerEntry& e = changed_entry(id);
    e.status.at(size_t(layer)) = RowStatus::Removed;
    e.removal.at(size_t(layer)) = Removal{tick, cause};
    if (!e.live_anywhere()) e.died_tick = tick;
}

void Ledger::mark_collapsed(int64_t id, int layer, int64_t tick) {
    LedgerEntry& e = changed_entry(id);
    e.status.at(size_t(layer)) = RowStatus::Collapsed;
    if (!e.live_anywhere()) e.died_tick = tick;
}

void Ledger::set_brightness(int layer, std::span<const int64_t> ids,
                            std::span<const float> values) {
    if (ids.size() != values.size())
        throw std::invalid_argument("ledger: " + std::to_string(values.size()) +
                                    " brightness values for " + std::to_string(ids.size()) +
                                    " records");
    update_brightness(
        layer, ids, [&](size_t i, float) { return values[i]; }, nullptr);
}

uint64_t Ledger::brightness_sum_from_scratch(int layer) const {
    const ChunkedColumn<float>& column = brightness_.at(size_t(layer));
    uint64_t sum = 0;
    for (size_t id = 0; id < column.size(); ++id)
        sum += brightness_weight(id) * std::bit_cast<uint32_t>(column[id]);
    return sum;
}

float Ledger::brightness(int64_t id, int layer) const {
    (void)at(id);
    return brightness_.at(size_t(layer))[size_t(id)];
}

std::vector<float> Ledger::brightness(int layer, std::span<const int64_t> ids) const {
    const ChunkedColumn<float>& column = brightness_.at(size_t(layer));
    check_ids(ids);
    std::vector<float> out(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) out[i] = column[size_t(ids[i])];
    return out;
}

void Ledger::check_ids(std::span<const int64_t> ids) const {
    // One unsigned compare per id (a negative id wraps above any size): a tick checks every row.
    const uint64_t size = uint64_t(entries_.size());
    for (int64_t id : ids)
        if (uint64_t(id) >= size) (void)at(id);  // throws, naming the id
}

const Ledger::BrightnessChunks& Ledger::brightness_chunks(int layer) const {
    return brightness_.at(size_t(layer)).chunks();
}

SpinePtr<float> Ledger::brightness_spine(int layer) const {
    return brightness_.at(size_t(layer)).spine();
}

void Ledger::restore_liveness(const Liveness& saved, int64_t tick) {
    constexpr size_t kChunk = size_t(kChunkRecords);
    for (size_t c = 0; c < chunk_revisions_.size(); ++c) {
        // A chunk whose revision stayed holds its records as they were (no standing changed and
        // none was added), so that it stays shared with the checkpoints that hold it.
        if (c < saved.revisions.size() && chunk_revisions_[c] == saved.revisions[c]) continue;
        for (size_t i = c * kChunk; i < std::min((c + 1) * kChunk, entries_.size()); ++i) {
            if (int64_t(i) < saved.size) {
                const LedgerEntry& was = (*saved.chunks[c])[i % kChunk];
                const LedgerEntry& now = entries_[i];
                if (was.status == now.status && was.removal == now.removal &&
                    was.died_tick == now.died_tick)
                    continue;
                LedgerEntry& e = changed_entry(int64_t(i));
                e.status = was.status;
                e.removal = was.removal;
                e.died_tick = was.died_tick;
            } else {
                LedgerEntry& e = changed_entry(int64_t(i));
                for (size_t l = 0; l < e.status.size(); ++l)
                    if (e.status[l] == RowStatus::Live) {
                        e.status[l] = RowStatus::Removed;
                        e.removal[l] = Removal{tick, {RemovalReason::TickAborted, std::nullopt}};
                    }
                if (e.died_tick < 0) e.died_tick = tick;
            }
        }
    }
}

}  // namespace kvw
